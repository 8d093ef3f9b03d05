/** A share as a whole percentage, never rounded up to 100 nor down to 0. */
export function percent(share: number): string {
  const rounded = Math.round(share * 100);
  return `${share > 0 && rounded === 0 ? '<1' : share < 1 && rounded === 100 ? '>99' : rounded}%`;
}

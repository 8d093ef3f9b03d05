/**
 * A count with thousands separators (`3210` → `3,210`), the same on every machine: placeholders are
 * sent to providers, so they must not depend on the locale.
 */
export function formatCount(value: number): string {
  const digits = String(Math.max(0, Math.round(value)));
  let out = '';
  for (let index = 0; index < digits.length; index++) {
    if (index > 0 && (digits.length - index) % 3 === 0) out += ',';
    out += digits[index];
  }
  return out;
}

/**
 * @module
 * How deep a cut goes. A cut breaks the provider's prefix cache once; a shallow one has to be made
 * again a turn later, so every later turn pays for it too. A cut therefore leaves room for the next
 * several turns at the conversation's recent append rate: few, deep, sticky cuts.
 */

/** Turns a cut leaves room for, at the recent append rate, before another is needed. */
export const CUT_RUNWAY_TURNS = 5;

/** A cut never takes the request below this share of the budget, whatever the append rate. */
export const MIN_CUT_TARGET_SHARE = 0.6;

/** When nothing is known of the append rate yet, it is taken as this share of the budget. */
export const DEFAULT_APPEND_SHARE = 0.05;

/**
 * The size a cut aims for: `budget - runway × appendRate` (`runway` defaults to
 * {@link CUT_RUNWAY_TURNS}), at least `MIN_CUT_TARGET_SHARE` of the budget, never above it. A runway
 * of 0 aims at the budget itself: the shallowest cut that fits.
 *
 * @example
 * cutTarget({ budget: 100_000, appendRate: 2_000 }); // 90000
 * cutTarget({ budget: 100_000, appendRate: 2_000, runway: 2 }); // 96000
 */
export function cutTarget({
  budget,
  appendRate,
  runway = CUT_RUNWAY_TURNS,
}: {
  budget: number;
  appendRate?: number | undefined;
  /** Turns the cut leaves room for. */
  runway?: number | undefined;
}): number {
  if (budget <= 0) return budget;
  const rate = appendRate !== undefined && appendRate > 0 ? appendRate : budget * DEFAULT_APPEND_SHARE;
  const target = Math.floor(budget - runway * rate);
  return Math.min(budget, Math.max(Math.floor(budget * MIN_CUT_TARGET_SHARE), target));
}

/**
 * The append rate after one more send: an average that follows the recent sends (each new send
 * weighs 0.3), so one large tool output neither sets it nor is forgotten at once.
 */
export function nextAppendRate(current: number | undefined, appended: number): number {
  if (!(appended >= 0) || !Number.isFinite(appended)) return current ?? 0;
  return current === undefined ? appended : Math.round(0.7 * current + 0.3 * appended);
}

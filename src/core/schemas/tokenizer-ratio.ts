/**
 * @module
 * The tokenizer ratio: how many tokens the backend counts per estimated token. Spillway's estimator
 * errs high, so the ratio is usually below 1 and clamps to 1; a backend with a heavier tokenizer
 * (or a chat template that wraps tools verbosely) pushes it up, and the schema floor scales with it.
 */

/** The ratio never goes below 1: the floor is never reported below the estimate. */
export const MIN_TOKENIZER_RATIO = 1;

/** The ratio never goes above 4: a bigger jump means the report is not about this request. */
export const MAX_TOKENIZER_RATIO = 4;

/**
 * Folds one report into the ratio: `max(ratio, reported / raw)`, clamped to 1–4. Requests with
 * images (or other blocks Spillway prices at a guess) do not calibrate: their real count says
 * nothing about the tokenizer.
 *
 * @example
 * observeTokenizerRatio({ ratio: 1, reported: 1_300, raw: 1_000, hasImages: false }); // 1.3
 */
export function observeTokenizerRatio({
  ratio,
  reported,
  raw,
  hasImages,
}: {
  ratio: number;
  reported: number;
  raw: number;
  hasImages: boolean;
}): number {
  if (hasImages || !(reported > 0) || !(raw > 0) || !Number.isFinite(reported)) return ratio;
  const observed = Math.min(MAX_TOKENIZER_RATIO, Math.max(MIN_TOKENIZER_RATIO, reported / raw));
  return Math.max(ratio, observed);
}

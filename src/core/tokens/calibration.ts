/**
 * @module
 * Calibration from what providers report. After each response, the prompt-token count the provider
 * reported for the request is compared with the raw (uncalibrated) estimate of what was sent; the
 * factor moves up to the highest such ratio seen and never down. Because the ratio is taken against
 * the raw estimate, one observation is enough: the calibrated estimate of the same request is then at
 * least the reported count.
 */

/** Calibration state: plain data, so it serializes with a suspended run. */
export interface Calibration {
  /** Multiplies raw estimates. Starts at `seed`, only grows. */
  factor: number;
  /** The factor a fresh run starts from. */
  seed: number;
  /** How many reports have been observed. */
  observations: number;
}

/**
 * The default seed. Spillway's estimator already errs high on every content class it was fitted on
 * (see the README), so it starts at 1.0 rather than the 1.15 a tight estimator would need; a higher
 * seed would only waste window before the first response arrives.
 */
export const DEFAULT_CALIBRATION_SEED = 1;

/**
 * How far above the real count Spillway's estimate can plausibly be, for deciding whether a request
 * estimated over the budget might still fit: the 95th percentile of its over-count across content
 * classes and tokenizer families is about 2.5 (`npm run accuracy`). Beyond it, spending a request to
 * find out is not worth it.
 */
export const ESTIMATE_OVERCOUNT_CEILING = 2.5;

/** The largest factor accepted from one report: a bigger jump means the report is not about this request. */
export const MAX_CALIBRATION_FACTOR = 4;

/** A fresh calibration. */
export function createCalibration({ seed = DEFAULT_CALIBRATION_SEED }: { seed?: number } = {}): Calibration {
  if (!(seed > 0) || !Number.isFinite(seed))
    throw new RangeError(`calibration seed must be a positive number, got ${seed}`);
  return { factor: seed, seed, observations: 0 };
}

/**
 * Folds one provider report into the calibration: `factor = max(factor, reported / raw)`, bounded by
 * {@link MAX_CALIBRATION_FACTOR}. Reports without a positive count, or for an empty estimate, change
 * nothing.
 */
export function observeCalibration(
  calibration: Calibration,
  { reported, raw }: { reported: number; raw: number },
): Calibration {
  if (!(reported > 0) || !(raw > 0) || !Number.isFinite(reported)) return calibration;
  const ratio = Math.min(MAX_CALIBRATION_FACTOR, reported / raw);
  return {
    ...calibration,
    factor: Math.max(calibration.factor, ratio),
    observations: calibration.observations + 1,
  };
}

/** A raw estimate scaled by the calibration, rounded up. */
export function applyCalibration(calibration: Calibration, raw: number): number {
  return Math.ceil(raw * calibration.factor);
}

/**
 * @module
 * Calibration from what providers report. After each response the prompt-token count the provider
 * reported is compared with the raw (uncalibrated) estimate of what was sent. The factor converges
 * to the observed ratio from above, in both directions: Spillway's estimator errs high by design, so
 * the ratio is usually below 1.0, and a factor that only grew would keep that over-count forever.
 * The factor stays above every ratio observed recently, by a margin that shrinks as observations
 * agree; it also bounds how low the real count can be (the lower factor), which tells a request
 * that surely does not fit from one only the estimate's margin says does not.
 */

/** Calibration state: plain data, so it serializes with a suspended run and a proxy's store. */
export interface Calibration {
  /** Multiplies raw estimates: above every recently observed ratio, by the margin. 1 until observed. */
  factor: number;
  /**
   * The lowest a raw estimate's ratio to the real count is believed to be: below every recently
   * observed ratio by the margin, `1 / ESTIMATE_OVERCOUNT_CEILING` until observed.
   */
  lowFactor: number;
  /** How many reports have been observed. */
  observations: number;
  /** The most recent reported / raw ratios, newest last (at most {@link CALIBRATION_WINDOW}). */
  ratios: number[];
}

/**
 * How far above the real count Spillway's estimate can plausibly be, for deciding whether a request
 * estimated over the budget might still fit: about the 95th percentile of its over-count across
 * content classes and tokenizer families (`npm run accuracy`).
 */
export const ESTIMATE_OVERCOUNT_CEILING = 2.5;

/** The largest ratio accepted from one report: a bigger jump means the report is not about this request. */
export const MAX_CALIBRATION_FACTOR = 4;

/** Reports the factor follows: older ones are forgotten, so a run's calibration follows its content. */
export const CALIBRATION_WINDOW = 16;

/** The margin after one report; it shrinks with the square root of the reports that agree. */
export const FIRST_MARGIN = 0.1;

/** The margin never goes below this (template tokens a count may miss, rounding). */
export const MIN_MARGIN = 0.02;

/** A fresh calibration: raw estimates as they are, the over-count ceiling as the lower bound. */
export function createCalibration(): Calibration {
  return { factor: 1, lowFactor: 1 / ESTIMATE_OVERCOUNT_CEILING, observations: 0, ratios: [] };
}

/**
 * The margin the factor keeps above the observed ratios: `FIRST_MARGIN / sqrt(n)`, at least
 * `MIN_MARGIN`, and at least the spread of the ratios (relative), so disagreeing reports keep it wide.
 */
export function calibrationMargin(ratios: readonly number[]): number {
  if (ratios.length === 0) return FIRST_MARGIN;
  const high = Math.max(...ratios);
  const low = Math.min(...ratios);
  const spread = high > 0 ? (high - low) / high : 0;
  return Math.max(MIN_MARGIN, FIRST_MARGIN / Math.sqrt(ratios.length), spread);
}

/**
 * Folds one provider report into the calibration: the ratio `reported / raw` joins the window, the
 * factor becomes the window's highest ratio times `1 + margin`, the lower factor its lowest divided
 * by it. Reports without a positive count, or for an empty estimate, change nothing.
 *
 * @example
 * observeCalibration(createCalibration(), { reported: 600, raw: 1_000 }).factor; // 0.66
 */
export function observeCalibration(
  calibration: Calibration,
  { reported, raw }: { reported: number; raw: number },
): Calibration {
  if (!(reported > 0) || !(raw > 0) || !Number.isFinite(reported) || !Number.isFinite(raw))
    return calibration;
  const ratio = Math.min(MAX_CALIBRATION_FACTOR, reported / raw);
  const ratios = [...calibration.ratios, ratio].slice(-CALIBRATION_WINDOW);
  return { ...fromRatios(ratios), observations: calibration.observations + 1 };
}

/**
 * Raises the calibration so that `raw` is estimated at least at `reported`: a count a provider
 * stated for a request it rejected. It is never lowered from such a count (a rejected request's
 * count may be a lower bound: vLLM truncates before counting).
 */
export function raiseCalibration(
  calibration: Calibration,
  { reported, raw }: { reported: number; raw: number },
): Calibration {
  if (!(reported > 0) || !(raw > 0) || applyCalibration(calibration, raw) >= reported) return calibration;
  return observeCalibration(calibration, { reported, raw });
}

function fromRatios(ratios: readonly number[]): Omit<Calibration, 'observations'> {
  const margin = calibrationMargin(ratios);
  return {
    factor: Math.max(...ratios) * (1 + margin),
    lowFactor: Math.min(...ratios) / (1 + margin),
    ratios: [...ratios],
  };
}

/** A raw estimate scaled by the calibration, rounded up: what the real count is believed to be at most. */
export function applyCalibration(calibration: Calibration, raw: number): number {
  return Math.ceil(raw * calibration.factor);
}

/** The least the real count of a raw estimate is believed to be. */
export function calibratedLowerBound(calibration: Calibration, raw: number): number {
  return Math.floor(raw * calibration.lowFactor);
}

/**
 * A calibration read back from storage, checked: anything malformed is a fresh calibration rather
 * than trusted (a wrong factor would change what is sent).
 */
export function parseCalibration(value: unknown): Calibration | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const candidate = value as Partial<Calibration>;
  const ratios = candidate.ratios;
  if (
    !Array.isArray(ratios) ||
    ratios.length > CALIBRATION_WINDOW ||
    !ratios.every((ratio) => typeof ratio === 'number' && ratio > 0 && ratio <= MAX_CALIBRATION_FACTOR) ||
    typeof candidate.observations !== 'number' ||
    !Number.isInteger(candidate.observations) ||
    candidate.observations < ratios.length
  )
    return undefined;
  if (ratios.length === 0) return { ...createCalibration(), observations: candidate.observations };
  return { ...fromRatios(ratios), observations: candidate.observations };
}

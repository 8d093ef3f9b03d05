/**
 * @module
 * Calibration from what providers report. After each response the prompt-token count the provider
 * reported is compared with the raw (uncalibrated) estimate of what was sent, split into its text and
 * the chat-template overhead Spillway adds for each message and tool. The factors converge to the
 * observed ratios from above, in both directions: Spillway's estimator errs high by design, so the
 * ratios are usually below 1.0, and a factor that only grew would keep that over-count forever.
 *
 * Two classes, because a small request is mostly template overhead and a large one mostly text, and
 * the estimator errs differently on each: a factor learned on small requests alone would under-count
 * a large paste. When the reports do not tell the classes apart (their mix hardly varies), one factor
 * serves both. The factors stay above every recently observed request by a margin that shrinks as
 * reports agree; lower factors bound how low the real count can be, which tells a request that surely
 * does not fit from one only the estimate's margin says does not.
 */

import { parseTokenizerCheck, type TokenizerCheck } from './tokenizer-check.js';

/** A raw estimate split by what the estimator counted: text, and the template overhead around it. */
export interface CalibrationInput {
  /** Tokens of text (prose and machine text) as the estimator counted them. */
  text: number;
  /** Tokens of chat-template overhead Spillway added (per message, per tool, per request). */
  overhead: number;
}

/** One report: what was estimated, and what the provider counted. */
export interface CalibrationSample extends CalibrationInput {
  reported: number;
}

/** Calibration state: plain data, so it serializes with a suspended run and a proxy's store. */
export interface Calibration {
  /** Multiplies raw text estimates: at most this many real tokens per estimated one. */
  text: number;
  /** Multiplies raw template-overhead estimates. */
  overhead: number;
  /** The least real tokens per estimated text and overhead token. */
  textLow: number;
  overheadLow: number;
  /** How many reports have been observed. */
  observations: number;
  /** The most recent reports, newest last (at most {@link CALIBRATION_WINDOW}). */
  samples: CalibrationSample[];
  /**
   * Whether the local tokenizer for the model counts as the provider does: kept with the
   * calibration because it is the same kind of knowledge (how a local count relates to the
   * provider's), stored per model, and it survives a new run.
   */
  tokenizer?: TokenizerCheck;
}

/**
 * How far above the real count Spillway's estimate can plausibly be, for deciding whether a request
 * estimated over the budget might still fit: about the 95th percentile of its over-count across
 * content classes and tokenizer families (`npm run accuracy`).
 */
export const ESTIMATE_OVERCOUNT_CEILING = 2.5;

/** The largest factor accepted: a bigger jump means the report is not about this request. */
export const MAX_CALIBRATION_FACTOR = 4;
/** The smallest factor accepted. */
export const MIN_CALIBRATION_FACTOR = 0.2;

/** Reports the factors follow: older ones are forgotten, so a run's calibration follows its content. */
export const CALIBRATION_WINDOW = 16;

/** The margin after one report; it shrinks with the square root of the reports that agree. */
export const FIRST_MARGIN = 0.1;

/** The margin never goes below this (template tokens a count may miss, rounding). */
export const MIN_MARGIN = 0.02;

/** Reports tell the classes apart when the overhead's share of them varies by at least this much. */
export const MIN_SHARE_SPREAD = 0.15;

/** Reports needed before each class gets its own factor: two to fit, two more to check the fit. */
export const MIN_CLASS_SAMPLES = 4;

/** A fresh calibration: raw estimates as they are, the over-count ceiling as the lower bound. */
export function createCalibration(): Calibration {
  const low = 1 / ESTIMATE_OVERCOUNT_CEILING;
  return { text: 1, overhead: 1, textLow: low, overheadLow: low, observations: 0, samples: [] };
}

/** A raw estimate as calibration reads it: a total counts as text. */
function inputOf(raw: number | CalibrationInput): CalibrationInput {
  return typeof raw === 'number' ? { text: raw, overhead: 0 } : raw;
}

function totalOf(raw: number | CalibrationInput): number {
  return typeof raw === 'number' ? raw : raw.text + raw.overhead;
}

/** Real tokens at most, for a raw estimate (a total, or split into text and overhead), rounded up. */
export function applyCalibration(calibration: Calibration, raw: number | CalibrationInput): number {
  if (typeof raw === 'number' || calibration.text === calibration.overhead)
    return Math.ceil(totalOf(raw) * scalarFactor(calibration));
  return Math.ceil(raw.text * calibration.text + raw.overhead * calibration.overhead);
}

/**
 * Real tokens at most of what was appended since a provider's report. Until the calibration has seen
 * {@link MIN_CLASS_SAMPLES} reports, the raw estimate bounds it when it is the higher: a few reports
 * say how whole requests count, not how the next tool output will, and the raw estimate errs high by
 * design.
 */
export function appendedUpperBound(calibration: Calibration, raw: CalibrationInput): number {
  const calibrated = applyCalibration(calibration, raw);
  if (calibration.observations >= MIN_CLASS_SAMPLES) return calibrated;
  return Math.max(calibrated, Math.ceil(raw.text + raw.overhead));
}

/** Real tokens at least, for a raw estimate. */
export function calibratedLowerBound(calibration: Calibration, raw: number | CalibrationInput): number {
  if (typeof raw === 'number' || calibration.textLow === calibration.overheadLow)
    return Math.floor(totalOf(raw) * Math.min(calibration.textLow, calibration.overheadLow));
  return Math.floor(raw.text * calibration.textLow + raw.overhead * calibration.overheadLow);
}

/**
 * One factor for a raw total whose split is unknown: the larger of the two, so a total is never
 * estimated low whatever its mix (planning arithmetic on raw estimates uses it).
 */
export function scalarFactor(calibration: Calibration): number {
  return Math.max(calibration.text, calibration.overhead);
}

/** The largest and smallest of some numbers (as `Math.max` and `Math.min` of them, without spreading). */
function extremes(values: readonly number[]): { high: number; low: number } {
  let high = Number.NEGATIVE_INFINITY;
  let low = Number.POSITIVE_INFINITY;
  for (const value of values) {
    if (Number.isNaN(value)) return { high: Number.NaN, low: Number.NaN };
    if (value > high) high = value;
    if (value < low) low = value;
  }
  return { high, low };
}

/**
 * The margin the factors keep above the observed reports: `FIRST_MARGIN / sqrt(n)`, at least
 * `MIN_MARGIN`, and at least the spread of the reports around the fit (relative), so disagreeing
 * reports keep it wide.
 */
export function calibrationMargin(ratios: readonly number[]): number {
  if (ratios.length === 0) return FIRST_MARGIN;
  return marginOf(ratios.length, extremes(ratios));
}

/** {@link calibrationMargin} of `count` ratios whose extremes are known. */
function marginOf(count: number, { high, low }: { high: number; low: number }): number {
  const spread = high > 0 ? (high - low) / high : 0;
  return Math.max(MIN_MARGIN, FIRST_MARGIN / Math.sqrt(count), spread);
}

/**
 * Folds one provider report into the calibration: the report joins the window, the class factors
 * are fitted to the window's reports (one factor when they do not tell the classes apart), then
 * raised so that every report in the window is covered, by the margin. Reports without a positive
 * count, or for an empty estimate, change nothing.
 *
 * @example
 * observeCalibration(createCalibration(), { reported: 600, raw: 1_000 }).text; // 0.66
 */
export function observeCalibration(
  calibration: Calibration,
  { reported, raw }: { reported: number; raw: number | CalibrationInput },
): Calibration {
  const input = inputOf(raw);
  const total = input.text + input.overhead;
  if (!(reported > 0) || !(total > 0) || !Number.isFinite(reported) || !Number.isFinite(total))
    return calibration;
  if (reported / total > MAX_CALIBRATION_FACTOR || reported / total < MIN_CALIBRATION_FACTOR)
    return calibration;
  const sample: CalibrationSample = { text: input.text, overhead: input.overhead, reported };
  const samples = [...calibration.samples, sample].slice(-CALIBRATION_WINDOW);
  return fromSamples(samples, calibration.observations + 1, calibration.tokenizer);
}

/**
 * Raises the calibration so that `raw` is estimated at least at `reported`: a count a provider
 * stated for a request it rejected. It is never lowered from such a count (a rejected request's
 * count may be a lower bound: vLLM truncates before counting).
 */
export function raiseCalibration(
  calibration: Calibration,
  { reported, raw }: { reported: number; raw: number | CalibrationInput },
): Calibration {
  if (!(reported > 0) || applyCalibration(calibration, raw) >= reported) return calibration;
  const raised = observeCalibration(calibration, { reported, raw });
  // Raising only: a factor the new sample would lower stays where it was.
  return {
    ...raised,
    text: Math.max(raised.text, calibration.text),
    overhead: Math.max(raised.overhead, calibration.overhead),
  };
}

function clamp(value: number): number {
  return Math.min(MAX_CALIBRATION_FACTOR, Math.max(MIN_CALIBRATION_FACTOR, value));
}

/** One factor for both classes: all the samples' reports over all their raw estimates. */
function pooledFactor(samples: readonly CalibrationSample[]): number {
  let reported = 0;
  let raw = 0;
  for (const sample of samples) {
    reported += sample.reported;
    raw += sample.text + sample.overhead;
  }
  return clamp(reported / raw);
}

/**
 * How far `fitted` must go up to cover every sample by the margin, and down to stay under every one
 * by it.
 */
function raisedBy(
  samples: readonly CalibrationSample[],
  fitted: { text: number; overhead: number },
): { up: number; down: number } {
  const ratios = samples.map(
    (sample) => sample.reported / (sample.text * fitted.text + sample.overhead * fitted.overhead),
  );
  const range = extremes(ratios);
  const margin = marginOf(ratios.length, range);
  return { up: range.high * (1 + margin), down: range.low / (1 + margin) };
}

/**
 * The class factors that fit the samples, before the margin: one per class once at least
 * {@link MIN_CLASS_SAMPLES} reports mix the classes differently enough to tell them apart (fewer fit
 * two factors exactly whatever the next request holds), else one factor that fits them all.
 */
function fitFactors(samples: readonly CalibrationSample[]): { text: number; overhead: number } {
  const shares = samples.map((sample) => sample.overhead / (sample.text + sample.overhead));
  const { high, low } = extremes(shares);
  if (samples.length >= MIN_CLASS_SAMPLES && high - low >= MIN_SHARE_SPREAD) {
    // Least squares on reported = text·t + overhead·o (the 2×2 normal equations).
    let tt = 0;
    let oo = 0;
    let to = 0;
    let tr = 0;
    let or = 0;
    for (const { text, overhead, reported } of samples) {
      tt += text * text;
      oo += overhead * overhead;
      to += text * overhead;
      tr += text * reported;
      or += overhead * reported;
    }
    const determinant = tt * oo - to * to;
    if (determinant > 1e-9 * tt * oo) {
      const text = (tr * oo - or * to) / determinant;
      const overhead = (or * tt - tr * to) / determinant;
      if (text > 0 && overhead > 0) return { text: clamp(text), overhead: clamp(overhead) };
    }
  }
  const pooled = pooledFactor(samples);
  return { text: pooled, overhead: pooled };
}

/**
 * The calibration the samples make. Built as one literal, the tokenizer check set after it, not
 * spread together: a proxy observes a report per request.
 */
function fromSamples(
  samples: readonly CalibrationSample[],
  observations: number,
  tokenizer: TokenizerCheck | undefined,
): Calibration {
  let fitted = fitFactors(samples);
  let { up, down } = raisedBy(samples, fitted);
  // Raised past the bound, a class factor would be cut back and the reports it was raised for
  // estimated low: the classes then share one factor, which covers every report within the bound
  // (a report past it is never observed).
  if (
    fitted.text !== fitted.overhead &&
    Math.max(fitted.text, fitted.overhead) * up > MAX_CALIBRATION_FACTOR
  ) {
    const pooled = pooledFactor(samples);
    fitted = { text: pooled, overhead: pooled };
    ({ up, down } = raisedBy(samples, fitted));
  }
  const calibration: Calibration = {
    text: clamp(fitted.text * up),
    overhead: clamp(fitted.overhead * up),
    textLow: fitted.text * down,
    overheadLow: fitted.overhead * down,
    observations,
    samples: [...samples],
  };
  if (tokenizer !== undefined) calibration.tokenizer = tokenizer;
  return calibration;
}

/**
 * A calibration read back from storage, checked: anything malformed is no calibration rather than
 * trusted (a wrong factor would change what is sent).
 */
export function parseCalibration(value: unknown): Calibration | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (CHECKED.has(value)) return value as Calibration;
  const candidate = value as Partial<Calibration>;
  const samples = candidate.samples;
  if (
    !Array.isArray(samples) ||
    samples.length > CALIBRATION_WINDOW ||
    !samples.every(
      (sample) =>
        typeof sample === 'object' &&
        sample !== null &&
        [sample.text, sample.overhead, sample.reported].every(
          (figure) => typeof figure === 'number' && figure >= 0,
        ) &&
        sample.reported > 0 &&
        sample.text + sample.overhead > 0,
    ) ||
    typeof candidate.observations !== 'number' ||
    !Number.isInteger(candidate.observations) ||
    candidate.observations < samples.length
  )
    return undefined;
  const tokenizer =
    candidate.tokenizer === undefined ? {} : { tokenizer: parseTokenizerCheck(candidate.tokenizer) };
  return checked(
    samples.length === 0
      ? { ...createCalibration(), observations: candidate.observations, ...tokenizer }
      : fromSamples(samples, candidate.observations, tokenizer.tokenizer),
  );
}

/**
 * Calibrations {@link parseCalibration} checked, frozen so nobody can change one after its check: a
 * proxy reads a model's calibration from its store and hands it to each request's manager, which
 * checks what it restores, so the same object is checked once, not once per request.
 */
const CHECKED = new WeakSet<object>();

function checked(calibration: Calibration): Calibration {
  const { tokenizer } = calibration;
  const frozen: Calibration = Object.freeze({
    ...calibration,
    samples: Object.freeze(
      calibration.samples.map(({ text, overhead, reported }) => Object.freeze({ text, overhead, reported })),
    ) as CalibrationSample[],
    ...(tokenizer === undefined
      ? {}
      : {
          tokenizer: Object.freeze({
            ...tokenizer,
            ...(tokenizer.last === undefined ? {} : { last: Object.freeze({ ...tokenizer.last }) }),
          }),
        }),
  });
  CHECKED.add(frozen);
  return frozen;
}

/**
 * Whether two calibrations count every request alike: the same reports in the window (so the same
 * factors), the same tokenizer check, and observation counts on the same side of each threshold a
 * count reads them against (any report at all; {@link MIN_CLASS_SAMPLES}). A store may keep the
 * older of two such calibrations without changing any count: a report that repeats the window's
 * reports teaches nothing.
 *
 * @example
 * const seen = observeCalibration(calibration, { reported, raw });
 * if (!calibrationsAgree(seen, calibration)) await save(seen);
 */
export function calibrationsAgree(a: Calibration, b: Calibration): boolean {
  return (
    a.text === b.text &&
    a.overhead === b.overhead &&
    a.textLow === b.textLow &&
    a.overheadLow === b.overheadLow &&
    Math.min(a.observations, MIN_CLASS_SAMPLES) === Math.min(b.observations, MIN_CLASS_SAMPLES) &&
    a.samples.length === b.samples.length &&
    a.samples.every((sample, index) => {
      const other = b.samples[index] as CalibrationSample;
      return (
        sample.text === other.text && sample.overhead === other.overhead && sample.reported === other.reported
      );
    }) &&
    (a.tokenizer === b.tokenizer ||
      JSON.stringify(a.tokenizer ?? null) === JSON.stringify(b.tokenizer ?? null))
  );
}

/** A calibration started afresh (a new run) that keeps what is known of the tokenizer. */
export function restartCalibration(calibration: Calibration): Calibration {
  return { ...createCalibration(), ...tokenizerOf(calibration) };
}

/** The calibration with the tokenizer check replaced. */
export function withTokenizerCheck(calibration: Calibration, tokenizer: TokenizerCheck): Calibration {
  return { ...calibration, tokenizer };
}

function tokenizerOf(calibration: Calibration): { tokenizer?: TokenizerCheck } {
  return calibration.tokenizer === undefined ? {} : { tokenizer: calibration.tokenizer };
}

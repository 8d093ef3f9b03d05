/**
 * @module
 * The best count of a request, and what it says about fitting, in the order of trust: the count the
 * provider reported for the previous request plus what was appended (anchored) > a count by a
 * counter trusted to count as the provider does (one the caller vouches for, or the model's
 * tokenizer once its counts agreed with the provider's reports) > the calibrated estimate. Each
 * comes with the least the real count can be, so "does not fit" is said only when even that is over
 * the budget. A tokenizer guessed from the model id never overrides an anchored count.
 */
import {
  appendedUpperBound,
  applyCalibration,
  type Calibration,
  type CalibrationInput,
  calibratedLowerBound,
  calibrationInputOf,
  type EstimateCache,
} from '../tokens/index.js';
import type { ChatRequest } from '../transcript/index.js';

/** Where a count came from, strongest first. */
export type CountSource = 'anchored' | 'exact' | 'calibrated' | 'estimate';

/** A request's count: what it is at most (`tokens`) and at least (`low`). */
export interface RequestCount {
  tokens: number;
  low: number;
  source: CountSource;
  /** The raw (uncalibrated) estimate of the whole request. */
  raw: number;
}

/** What the provider counted for an earlier request this one extends. */
export interface Anchor {
  reported: number;
  /** Raw estimate of what was appended since, as text and template overhead. */
  appended: { text: number; overhead: number };
  /** Raw estimate of what the counted request had and this one has not (tool schemas). */
  removed?: { text: number; overhead: number };
}

/** Whether a request fits: surely, surely not, or only the estimate's margin cannot tell. */
export type FitVerdict = 'fits' | 'over' | 'uncertain';

/**
 * The prompt tokens a request may take, by how it was counted: `budget` for an estimate (the window
 * less the reply reserve and the safety share for estimation error), `counted` for a measured count
 * (less only a small template margin).
 */
export interface FitBudgets {
  budget: number;
  counted: number;
}

/** A counter trusted to count as the provider does, and the relative error its counts may have. */
export interface TrustedCounter {
  cache: EstimateCache;
  /** 0 for a counter the caller vouches for; what the reports showed for a verified tokenizer. */
  spread: number;
}

/** What counting needs. */
export interface CountContext {
  cache: EstimateCache;
  /** Counts a request when the estimate alone cannot decide; absent while the tokenizer is a guess. */
  exact?: TrustedCounter;
  calibration: Calibration;
  /** The anchor of a request, with what was appended measured by `cache` (default: the estimator's). */
  anchorFor: (request: Pick<ChatRequest, 'messages' | 'tools'>, cache?: EstimateCache) => Anchor | undefined;
}

/**
 * Counts a request: anchored when it extends a counted one, else calibrated. When that count is over
 * its budget, a trusted counter counts it instead: the appended part of an anchored count, or the
 * whole of any other. An untrusted tokenizer is never asked.
 */
export function countRequest(
  context: CountContext,
  request: Pick<ChatRequest, 'messages' | 'tools'>,
  budgets: FitBudgets,
): RequestCount {
  const { cache, calibration } = context;
  const breakdown = cache.request(request);
  const raw = breakdown.total;
  const anchor = context.anchorFor(request);
  const count: RequestCount = anchor
    ? anchoredCount(anchor, raw, {
        upper: (part) => appendedUpperBound(calibration, part),
        lower: (part) => calibratedLowerBound(calibration, part),
      })
    : {
        tokens: applyCalibration(calibration, calibrationInputOf(breakdown)),
        low: calibratedLowerBound(calibration, calibrationInputOf(breakdown)),
        source: calibration.observations > 0 ? 'calibrated' : 'estimate',
        raw,
      };
  const trusted = context.exact;
  // A trusted counter outranks the calibration's bounds: asked whenever they do not say it fits.
  if (verdictOf(count, budgets) === 'fits' || trusted === undefined) return count;
  const spread = trusted.spread;
  const bounds = {
    upper: (part: CalibrationInput) => Math.ceil((part.text + part.overhead) * (1 + spread)),
    lower: (part: CalibrationInput) => Math.floor((part.text + part.overhead) * (1 - spread)),
  };
  if (anchor) {
    const counted = context.anchorFor(request, trusted.cache);
    return counted ? anchoredCount(counted, raw, bounds) : count;
  }
  const whole = calibrationInputOf(trusted.cache.request(request));
  return { tokens: bounds.upper(whole), low: bounds.lower(whole), source: 'exact', raw };
}

/** The provider's count plus what was appended, less the schemas it counted and this one lacks. */
function anchoredCount(
  anchor: Anchor,
  raw: number,
  bounds: { upper: (part: CalibrationInput) => number; lower: (part: CalibrationInput) => number },
): RequestCount {
  return {
    tokens:
      anchor.reported + bounds.upper(anchor.appended) - (anchor.removed ? bounds.lower(anchor.removed) : 0),
    low:
      anchor.reported + bounds.lower(anchor.appended) - (anchor.removed ? bounds.upper(anchor.removed) : 0),
    source: 'anchored',
    raw,
  };
}

/** The budget a count is judged against: the safety share is for estimates only. */
export function budgetFor(count: Pick<RequestCount, 'source'>, budgets: FitBudgets): number {
  return isMeasured(count) ? budgets.counted : budgets.budget;
}

/**
 * The verdict of a count against the budget for its source: `fits` within it; `over` when even its
 * lower bound is over it; else `uncertain`.
 */
export function verdictOf(
  count: Pick<RequestCount, 'tokens' | 'low' | 'source'>,
  budgets: FitBudgets,
): FitVerdict {
  const budget = budgetFor(count, budgets);
  if (count.tokens <= budget) return 'fits';
  return count.low > budget ? 'over' : 'uncertain';
}

/** Whether a count is a measurement (the provider's, or a trusted counter's), not an estimate. */
export function isMeasured(count: Pick<RequestCount, 'source'>): boolean {
  return count.source === 'anchored' || count.source === 'exact';
}

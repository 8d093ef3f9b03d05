/**
 * @module
 * The best count of a request, and what it says about fitting. A count the provider stated for the
 * previous request (an anchor) plus the appended messages beats an exact tokenizer's count, which
 * beats the calibrated estimate; each comes with the least the real count can be, so "does not fit"
 * is said only when even that is over the budget.
 */
import {
  appendedUpperBound,
  applyCalibration,
  type Calibration,
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

/** What counting needs. */
export interface CountContext {
  cache: EstimateCache;
  /** A tokenizer exact for the model, used when the estimate alone cannot decide. */
  exact?: EstimateCache;
  calibration: Calibration;
  anchorFor: (request: Pick<ChatRequest, 'messages' | 'tools'>) => Anchor | undefined;
}

/**
 * Counts a request: anchored when it extends a counted one, else calibrated. When that count is over
 * its budget but its lower bound is not, the exact tokenizer decides, if there is one.
 */
export function countRequest(
  context: CountContext,
  request: Pick<ChatRequest, 'messages' | 'tools'>,
  budgets: FitBudgets,
): RequestCount {
  const { cache, calibration } = context;
  const breakdown = cache.request(request);
  const raw = breakdown.total;
  const split = calibrationInputOf(breakdown);
  const anchor = context.anchorFor(request);
  const count: RequestCount = anchor
    ? {
        tokens:
          anchor.reported +
          appendedUpperBound(calibration, anchor.appended) -
          (anchor.removed ? calibratedLowerBound(calibration, anchor.removed) : 0),
        low:
          anchor.reported +
          calibratedLowerBound(calibration, anchor.appended) -
          (anchor.removed ? applyCalibration(calibration, anchor.removed) : 0),
        source: 'anchored',
        raw,
      }
    : {
        tokens: applyCalibration(calibration, split),
        low: calibratedLowerBound(calibration, split),
        source: calibration.observations > 0 ? 'calibrated' : 'estimate',
        raw,
      };
  if (verdictOf(count, budgets) !== 'uncertain' || context.exact === undefined) return count;
  const exact = context.exact.request(request).total;
  return { tokens: exact, low: exact, source: 'exact', raw };
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

/** Whether a count is a measurement (the provider's or an exact tokenizer's), not an estimate. */
export function isMeasured(count: Pick<RequestCount, 'source'>): boolean {
  return count.source === 'anchored' || count.source === 'exact';
}

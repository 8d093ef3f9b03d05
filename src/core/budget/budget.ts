/**
 * @module
 * The prompt budget: how many tokens a request's prompt may take in a model's window.
 */

/** A model's limits, as far as they are known. */
export interface ModelLimits {
  /** The context window in tokens (prompt + reply). */
  contextLength?: number;
  /** The most tokens the model will write in one reply. */
  outputCap?: number;
}

/** The window assumed when nothing tells Spillway the real one: small enough to be safe almost anywhere. */
export const FALLBACK_CONTEXT_LENGTH = 8_192;

/** Share of the window kept free for estimation error. */
export const DEFAULT_SAFETY_RATIO = 0.03;

/** The smallest reserve for the reply when neither the request nor the model sets one. */
export const MIN_DEFAULT_RESERVE = 1_000;

/** Share of the window reserved for the reply when neither the request nor the model sets one. */
export const DEFAULT_RESERVE_RATIO = 0.02;

/** How a budget was derived, and the prompt tokens it allows. */
export interface Budget {
  /** The context window used. */
  window: number;
  /** Tokens kept for the reply. */
  reserve: number;
  /** Tokens kept free for estimation error. */
  safety: number;
  /** Prompt tokens allowed: `window - reserve - safety`. */
  budget: number;
}

/** Inputs of {@link computeBudget}. */
export interface BudgetOptions extends ModelLimits {
  /** The request's own reply cap (`max_tokens`). */
  maxTokens?: number;
  /** A fixed reserve that overrides the defaults. */
  reserve?: number;
  /** Share of the window kept free; default {@link DEFAULT_SAFETY_RATIO}. */
  safetyRatio?: number;
}

/**
 * `budget = window - reserve - safety`. The reserve is the request's `max_tokens`, else the model's
 * output cap (at most half the window), else `max(1000, 2% of the window)` (at most a quarter of
 * the window); the safety margin is 3% of the window. An unknown
 * window is {@link FALLBACK_CONTEXT_LENGTH}. The budget can be negative: then nothing fits.
 *
 * @example
 * computeBudget({ contextLength: 128_000, maxTokens: 4_096 }).budget; // 128000 - 4096 - 3840
 */
export function computeBudget({
  contextLength,
  outputCap,
  maxTokens,
  reserve,
  safetyRatio = DEFAULT_SAFETY_RATIO,
}: BudgetOptions): Budget {
  const window = contextLength ?? FALLBACK_CONTEXT_LENGTH;
  // The default reserve never takes more than a quarter of a (tiny) window.
  const defaultReserve = Math.min(
    Math.max(MIN_DEFAULT_RESERVE, Math.ceil(window * DEFAULT_RESERVE_RATIO)),
    Math.floor(window / 4),
  );
  // A model's output cap can be as large as its window (gateways advertise max_output = max_input):
  // reserving all of it would leave no prompt budget, so the cap is reserved up to half the window.
  const chosenReserve =
    reserve ??
    maxTokens ??
    (outputCap === undefined ? defaultReserve : Math.min(outputCap, Math.floor(window / 2)));
  const safety = Math.ceil(window * safetyRatio);
  return { window, reserve: chosenReserve, safety, budget: window - chosenReserve - safety };
}

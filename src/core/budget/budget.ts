/**
 * @module
 * The prompt budget: how many tokens a request's prompt may take in a model's window.
 */

/**
 * What a provider holds against the window before it generates: the prompt and the requested
 * `max_tokens` together (`prompt+reply`: vLLM, OpenAI, Anthropic reject the request), or the prompt
 * alone (`prompt`: llama.cpp's server rejects only `prompt >= n_ctx` and ends a reply that reaches the
 * window with `finish_reason: "length"`, `tools/server/server-context.cpp`).
 */
export type WindowCheck = 'prompt+reply' | 'prompt';

/** A model's limits, as far as they are known. */
export interface ModelLimits {
  /** The context window in tokens (prompt + reply). */
  contextLength?: number;
  /** The most tokens the model will write in one reply. */
  outputCap?: number;
  /** What the provider checks against the window (default `prompt+reply`). */
  windowCheck?: WindowCheck;
}

/** The window assumed when nothing tells Spillway the real one: small enough to be safe almost anywhere. */
export const FALLBACK_CONTEXT_LENGTH = 8_192;

/** Share of the window kept free for estimation error. */
export const DEFAULT_SAFETY_RATIO = 0.03;

/**
 * Tokens kept free, in place of the safety share, when the prompt's count is measured (the
 * provider's own figure plus what was appended, an exact tokenizer, a server's counting endpoint):
 * the chat template may differ, and an anchored count still estimates what was appended. Replaying
 * the recorded sessions (`npm run eval -- eval-transcripts`), anchored counts fell short of the
 * provider's by up to 138 tokens: with a 64-token margin 18 requests were rejected (and recovered)
 * over the 16 replays, with 256 one, as with the 3% share. Never more than the safety share; the
 * clamp keeps its own 512 tokens between prompt and reply.
 */
export const COUNTED_MARGIN = 256;

/** The smallest reserve for the reply when neither the request nor the model sets one. */
export const MIN_DEFAULT_RESERVE = 1_000;

/** Share of the window reserved for the reply when neither the request nor the model sets one. */
export const DEFAULT_RESERVE_RATIO = 0.02;

/**
 * The reply reserve never takes more than this share of the window: a request that asks for the
 * model's whole output cap (gateways advertise an output cap as large as the window) still gets its
 * history fitted, and its `max_tokens` lowered to the room the prompt leaves.
 */
export const MAX_RESERVE_SHARE = 0.25;

/**
 * The reply reserve's share of the window where the provider checks the prompt alone: a request is
 * never rejected for its `max_tokens`, so the reserve needs only the room a reply takes, not the
 * whole cap a client asks for.
 */
export const PROMPT_ONLY_RESERVE_SHARE = 0.125;

/** How a budget was derived, and the prompt tokens it allows. */
export interface Budget {
  /** The context window used. */
  window: number;
  /** Tokens kept for the reply. */
  reserve: number;
  /** Tokens kept free for estimation error. */
  safety: number;
  /** Prompt tokens allowed to an estimate: `window - reserve - safety`. */
  budget: number;
  /**
   * Prompt tokens allowed to a measured count: `window - reserve - min(safety, COUNTED_MARGIN)`.
   * The safety share is for an estimate's error, which a measured count does not have.
   */
  counted: number;
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
 * `budget = window - reserve - safety`. The reserve is a configured one, else the request's
 * `max_tokens` or the model's output cap, never more than a quarter of the window (an eighth where
 * the provider checks the prompt alone; the clamp then lowers `max_tokens` to the room the prompt
 * leaves), else `max(1000, 2% of the window)`; the safety
 * margin is 3% of the window, and applies to estimates only: a measured count is judged against
 * `counted`, which keeps {@link COUNTED_MARGIN} for template differences. An unknown window is {@link FALLBACK_CONTEXT_LENGTH}. The budget can
 * be negative: then nothing fits. The one place the reply reserve is decided.
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
  windowCheck,
}: BudgetOptions): Budget {
  const window = contextLength ?? FALLBACK_CONTEXT_LENGTH;
  const chosenReserve = reserve ?? replyReserve({ window, maxTokens, outputCap, windowCheck });
  const safety = Math.ceil(window * safetyRatio);
  const budget = window - chosenReserve - safety;
  const counted = window - chosenReserve - Math.min(safety, COUNTED_MARGIN);
  return { window, reserve: chosenReserve, safety, budget, counted };
}

/**
 * The reply reserve when none is configured: see {@link computeBudget}. Where the provider checks
 * the prompt alone it is at most {@link PROMPT_ONLY_RESERVE_SHARE} of the window.
 */
export function replyReserve({
  window,
  maxTokens,
  outputCap,
  windowCheck,
}: {
  window: number;
  maxTokens?: number | undefined;
  outputCap?: number | undefined;
  windowCheck?: WindowCheck | undefined;
}): number {
  const share = windowCheck === 'prompt' ? PROMPT_ONLY_RESERVE_SHARE : MAX_RESERVE_SHARE;
  const most = Math.floor(window * share);
  const wanted = maxTokens ?? outputCap;
  if (wanted === undefined)
    return Math.min(Math.max(MIN_DEFAULT_RESERVE, Math.ceil(window * DEFAULT_RESERVE_RATIO)), most);
  return Math.max(1, Math.min(wanted, most));
}

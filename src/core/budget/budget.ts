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

/**
 * Tokens kept for the reply when a request is fitted, unless the caller configures a reserve: the
 * room an ordinary reply needs (a tool call, a paragraph), not a share of the window. A request whose
 * prompt leaves at least this much is sent uncut, its `max_tokens` lowered to the room left; a
 * request is refused only when even this reply cannot fit by a trusted count. A request asking for
 * less (`max_tokens` below it) or a model capped below it reserves that instead.
 */
export const DEFAULT_RESERVE = 1_024;

/**
 * In a small window the reserve never takes more than this share of it (a 1,200-token window keeps
 * 300 for the reply, not 1,024); from 4,096 tokens up it does not bind.
 */
export const MAX_RESERVE_SHARE = 0.25;

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
 * `budget = window - reserve - safety`. The reserve is a configured one, else what a reply needs:
 * {@link DEFAULT_RESERVE}, or the request's `max_tokens`, the model's output cap or a quarter of a
 * small window when smaller (the clamp gives each reply the room the prompt leaves, up to what it
 * asked for). The safety margin is
 * 3% of the window, and applies to estimates only: a measured count is judged against `counted`,
 * which keeps {@link COUNTED_MARGIN} for template differences. An unknown window is
 * {@link FALLBACK_CONTEXT_LENGTH}. The budget can be negative: then nothing fits. The one place the
 * reply reserve is decided.
 *
 * @example
 * computeBudget({ contextLength: 128_000, maxTokens: 4_096 }).budget; // 128000 - 1024 - 3840
 */
export function computeBudget({
  contextLength,
  outputCap,
  maxTokens,
  reserve,
  safetyRatio = DEFAULT_SAFETY_RATIO,
}: BudgetOptions): Budget {
  const window = contextLength ?? FALLBACK_CONTEXT_LENGTH;
  const chosenReserve = reserve ?? replyReserve({ window, maxTokens, outputCap });
  const safety = Math.ceil(window * safetyRatio);
  const budget = window - chosenReserve - safety;
  const counted = window - chosenReserve - Math.min(safety, COUNTED_MARGIN);
  return { window, reserve: chosenReserve, safety, budget, counted };
}

/**
 * The reply reserve when none is configured: {@link DEFAULT_RESERVE}, or less when the request asks
 * for less, the model writes less, or the window is so small that a quarter of it is less. See
 * {@link computeBudget}.
 *
 * @example
 * replyReserve({ window: 32_768, maxTokens: 32_000 }); // 1024
 * replyReserve({ window: 32_768, maxTokens: 300 }); // 300
 * replyReserve({ window: 1_200 }); // 300
 */
export function replyReserve({
  window,
  maxTokens,
  outputCap,
}: {
  window: number;
  maxTokens?: number | undefined;
  outputCap?: number | undefined;
}): number {
  const most = Math.floor(window * MAX_RESERVE_SHARE);
  return Math.max(
    1,
    Math.min(DEFAULT_RESERVE, most, maxTokens ?? DEFAULT_RESERVE, outputCap ?? DEFAULT_RESERVE),
  );
}

/**
 * What the window leaves the prompt, in words: `the W-token window leaves B after reserving R for the
 * reply`, or, when nothing is left, the reserve and the safety margin that took it.
 *
 * @example
 * windowRoomText({ window: 4_000, reserve: 4_000, budget: -120 });
 * // 'the 4000-token window leaves no room for the prompt after reserving 4000 for the reply and 120 for estimation error'
 */
export function windowRoomText({
  window,
  reserve,
  budget,
}: {
  window: number;
  reserve: number;
  budget: number;
}): string {
  if (budget > 0)
    return `the ${window}-token window leaves ${budget} after reserving ${reserve} for the reply`;
  const margin = window - reserve - budget;
  return `the ${window}-token window leaves no room for the prompt after reserving ${reserve} for the reply${margin > 0 ? ` and ${margin} for estimation error` : ''}`;
}

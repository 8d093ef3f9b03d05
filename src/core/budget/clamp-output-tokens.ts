/**
 * @module
 * `max_tokens` clamped to the room the prompt leaves.
 */

/** Tokens kept between prompt and reply when clamping, for template tokens the estimate may miss. */
export const CLAMP_MARGIN = 512;

/** The clamp never goes below this (or the output cap, when smaller): a reply needs room to be useful. */
export const MIN_CLAMPED_OUTPUT = 1_024;

/** When to clamp: `auto` fills in a missing `max_tokens`, `always` also lowers a caller's, `never` leaves it. */
export type ClampMode = 'auto' | 'always' | 'never';

/** Inputs of {@link clampOutputTokens}. */
export interface ClampOptions {
  window: number;
  /** Estimated prompt tokens, tool schemas included. */
  promptEstimate: number;
  outputCap?: number;
  /** The caller's own `max_tokens`, if any. */
  requested?: number;
  mode?: ClampMode;
}

/**
 * `max_tokens = min(outputCap, window - promptEstimate - 512)`, never below `min(1024, outputCap)`.
 * A caller's explicit `max_tokens` is left alone unless `mode` is `always`, and is then only ever
 * lowered. Returns `undefined` when the request should carry no `max_tokens`.
 *
 * @example
 * clampOutputTokens({ window: 32_768, promptEstimate: 30_000, outputCap: 8_192 }); // 2256
 */
export function clampOutputTokens({
  window,
  promptEstimate,
  outputCap,
  requested,
  mode = 'auto',
}: ClampOptions): number | undefined {
  if (mode === 'never' || (mode === 'auto' && requested !== undefined)) return requested;
  const room = window - promptEstimate - CLAMP_MARGIN;
  const cap = outputCap ?? Number.POSITIVE_INFINITY;
  const floor = Math.min(MIN_CLAMPED_OUTPUT, cap);
  const clamped = Math.max(floor, Math.min(cap, room));
  return requested === undefined ? clamped : Math.min(requested, clamped);
}

/**
 * @module
 * `max_tokens` clamped to the room the prompt leaves.
 */

/** Tokens kept between prompt and reply when clamping, for template tokens the estimate may miss. */
export const CLAMP_MARGIN = 512;

/** The clamp never goes below this (or the output cap, when smaller): a reply needs room to be useful. */
export const MIN_CLAMPED_OUTPUT = 1_024;

/**
 * When to clamp: `auto` fills in a missing `max_tokens` when the model's output cap is known or the
 * format requires one, and
 * lowers one the window or the output cap has no room for; `lower` only lowers (a request without one goes out without one: the proxy's
 * mode, so a request that fits goes out unchanged); `never` leaves it.
 */
export type ClampMode = 'auto' | 'lower' | 'never';

/** Inputs of {@link clampOutputTokens}. */
export interface ClampOptions {
  window: number;
  /** Estimated prompt tokens, tool schemas included. */
  promptEstimate: number;
  outputCap?: number;
  /** The caller's own `max_tokens`, if any. */
  requested?: number;
  mode?: ClampMode;
  /** The wire format requires `max_tokens` (Anthropic Messages): `auto` fills it in even without a cap. */
  required?: boolean;
}

/**
 * `max_tokens = min(outputCap, window - promptEstimate - 512)`, never below `min(1024, outputCap)`.
 * A caller's `max_tokens` is only ever lowered, and only when it is over that; `auto` fills in a
 * missing one when the output cap is known, `lower` and `never` do not. Returns `undefined` when the request should carry no
 * `max_tokens`.
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
  required = false,
}: ClampOptions): number | undefined {
  if (mode === 'never' || (mode === 'lower' && requested === undefined)) return requested;
  // With no cap known there is nothing to fill in: the provider's default takes the room the
  // prompt leaves, which no estimate can state more exactly.
  if (requested === undefined && outputCap === undefined && !required) return undefined;
  const room = window - promptEstimate - CLAMP_MARGIN;
  const cap = outputCap ?? Number.POSITIVE_INFINITY;
  const floor = Math.min(MIN_CLAMPED_OUTPUT, cap);
  const clamped = Math.max(floor, Math.min(cap, room));
  return requested === undefined ? clamped : Math.min(requested, clamped);
}

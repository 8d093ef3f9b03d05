/**
 * @module
 * The ordered catalog. Order decides (first match wins), so it is built, not hand-sorted:
 * 1. provider rows with figures: a message that states a window is an overflow, whatever else the
 *    text holds;
 * 2. near-misses (`none`): rate limits, quota, byte-size limits, overloads, auth;
 * 3. provider rows without figures (a phrase or an error code);
 * 4. generic wording, weak when it yields no figures.
 * Within each tier, rows keep their order in the family files (more specific wording first).
 */
import type { OverflowRow } from '../types.js';
import { ANTHROPIC_ROWS } from './anthropic.js';
import { CLIENT_ROWS } from './clients.js';
import { GENERIC_ROWS } from './generic.js';
import { GOOGLE_ROWS } from './google.js';
import { HOSTED_API_ROWS } from './hosted-apis.js';
import { INFERENCE_SERVER_ROWS } from './inference-servers.js';
import { NEAR_MISS_ROWS } from './near-misses.js';
import { OPENAI_FAMILY_ROWS } from './openai-family.js';

const FIGURE_GROUP = /\(\?<(?:window|total|input|output|output_limit)>/;

/** Whether a row's pattern can yield a figure (has a figure group). */
function capturesFigures(row: OverflowRow): boolean {
  return FIGURE_GROUP.test(row.pattern.source);
}

const PROVIDER_ROWS: readonly OverflowRow[] = [
  ...OPENAI_FAMILY_ROWS,
  ...ANTHROPIC_ROWS,
  ...GOOGLE_ROWS,
  ...HOSTED_API_ROWS,
  ...INFERENCE_SERVER_ROWS,
  ...CLIENT_ROWS,
];

/**
 * Every built-in row in the order `classifyOverflow` tries them (after the caller's own rows). Each
 * row names the provider and a real message it was made for, with the message's source.
 *
 * @example
 * OVERFLOW_CATALOG.find((row) => row.name === 'anthropic-prompt-too-long')?.example;
 * // 'prompt is too long: 208310 tokens > 200000 maximum'
 */
export const OVERFLOW_CATALOG: readonly OverflowRow[] = [
  ...PROVIDER_ROWS.filter(capturesFigures),
  ...NEAR_MISS_ROWS,
  ...PROVIDER_ROWS.filter((row) => !capturesFigures(row)),
  ...GENERIC_ROWS,
];

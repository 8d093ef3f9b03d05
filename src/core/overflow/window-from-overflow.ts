/**
 * @module
 * The window figure of an overflow, for `learnWindow`.
 */
import { OVERFLOW_CATALOG } from './catalog/index.js';
import type { OverflowInfo } from './types.js';

/**
 * The window a `context` or `budget` overflow states, in tokens, for the caller to remember per model
 * (`manager.learnWindow(model, window)`, which also drops implausible figures outside 1,024 … 2^30).
 * Never from `output_cap` (its figure is an output limit, or for vLLM the served length checked against
 * `max_tokens`), never from character counts, never from a 413 without figures.
 *
 * @example
 * const info = classifyOverflow({ body: 'prompt is too long: 210000 tokens > 200000 maximum' });
 * const window = windowFromOverflow(info); // 200000
 * if (window !== undefined) manager.learnWindow('claude-sonnet-4-5', window);
 */
export function windowFromOverflow(info: OverflowInfo): number | undefined {
  if (info.kind !== 'context' && info.kind !== 'budget') return undefined;
  if (info.units === 'characters') return undefined;
  return info.window;
}

/**
 * `prompt` when the catalog row that recognized the overflow belongs to a sender that checks the
 * prompt alone against the window (llama.cpp's server), for the reply reserve; else `undefined`.
 *
 * @example
 * windowCheckFromOverflow(classifyOverflow({ body: llamacppBody })); // 'prompt'
 */
export function windowCheckFromOverflow(info: OverflowInfo): 'prompt' | undefined {
  return OVERFLOW_CATALOG.find((row) => row.name === info.pattern)?.windowCheck;
}

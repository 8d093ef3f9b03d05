/**
 * @module
 * Spillway's estimator with a process-wide memory of the texts it counted. A proxy reads every
 * request anew, so the manager's per-object estimate cache never sees the same message twice; the
 * same tool results and messages come back on every turn of a conversation, though, and counting a
 * text is the bulk of fitting it. The counts are the estimator's own, so fitting is unchanged.
 */
import { createEstimator, type TokenCounter, type TokenizerFamily } from '../core/index.js';

/** Texts shorter than this are counted again rather than remembered. */
export const MIN_CACHED_CHARS = 64;

/** The most characters of text remembered, over all families (oldest forgotten first). */
export const MAX_CACHED_CHARS = 32 * 1024 * 1024;

const counters = new Map<TokenizerFamily, TokenCounter>();
/** Counts by family, then text; each map iterates least recently used first. */
const counts = new Map<TokenizerFamily, Map<string, number>>();
let cachedChars = 0;

function evict(): void {
  for (const texts of counts.values()) {
    for (const [text] of texts) {
      if (cachedChars <= MAX_CACHED_CHARS) return;
      texts.delete(text);
      cachedChars -= text.length;
    }
  }
}

/**
 * The estimator for a tokenizer family, with counts of long texts remembered (least recently used
 * forgotten first, at most {@link MAX_CACHED_CHARS} characters in all). Same name and counts as
 * `createEstimator({ family })`.
 *
 * @example
 * const manager = new ContextWindowManager({ contextLength, counter: cachedEstimator(tokenizerFamilyOf(model)) });
 */
export function cachedEstimator(family: TokenizerFamily): TokenCounter {
  let counter = counters.get(family);
  if (counter) return counter;
  const estimator = createEstimator({ family });
  const texts = new Map<string, number>();
  counts.set(family, texts);
  counter = {
    name: estimator.name,
    count(text: string): number {
      if (text.length < MIN_CACHED_CHARS) return estimator.count(text);
      const known = texts.get(text);
      if (known !== undefined) {
        texts.delete(text);
        texts.set(text, known);
        return known;
      }
      const value = estimator.count(text);
      texts.set(text, value);
      cachedChars += text.length;
      if (cachedChars > MAX_CACHED_CHARS) evict();
      return value;
    },
  };
  counters.set(family, counter);
  return counter;
}

/**
 * @module
 * Spillway's estimator with a process-wide memory of the texts it counted. A proxy reads every
 * request anew, so the manager's per-object estimate cache never sees the same message twice; the
 * same tool results and messages come back on every turn of a conversation, though, and counting a
 * text is the bulk of fitting it. The counts are the estimator's own, so fitting is unchanged.
 */
import { createEstimator, type TokenCounter, type TokenizerFamily } from '../core/index.js';
import { sha256 } from './sha256.js';

/** Texts shorter than this are counted again rather than remembered. */
export const MIN_CACHED_CHARS = 64;

/**
 * The most characters of keys remembered, over all families (least recently used forgotten first):
 * about 2 million tokens of text, the history of a dozen long conversations, in at most 16 MB. The
 * cache is the largest thing a proxy keeps per process besides its memory store, so its size is
 * part of the bound on the whole process (`npm run bench -- memory`).
 */
export const MAX_CACHED_CHARS = 8 * 1024 * 1024;

/**
 * Texts longer than this are remembered under a SHA-256 of their content, not as themselves. V8
 * hashes a string longer than 16,383 characters by its length alone (`String::kMaxHashCalcLength`),
 * so long texts of one length all land in one bucket of a `Map`, and each lookup compared the new
 * text with every one of them: quadratic in the number of long tool outputs.
 */
export const DIGEST_KEY_CHARS = 16_383;

/** How many characters one step of a background count covers before it lets other work run. */
export const COUNT_STEP_CHARS = 256 * 1024;

/** A counter that can also count texts ahead of time, in steps, pausing between them. */
export interface CachedEstimator extends TokenCounter {
  /**
   * Counts the texts not remembered yet, `COUNT_STEP_CHARS` at a time, awaiting `pause()` between
   * steps: later `count` calls on them are lookups.
   */
  warm(texts: Iterable<string>, pause: () => Promise<void>): Promise<void>;
}

const counters = new Map<TokenizerFamily, CachedEstimator>();
/** Counts by family, then key; each map iterates least recently used first. */
const counts = new Map<TokenizerFamily, Map<string, number>>();
let cachedChars = 0;

function evict(): void {
  for (const keys of counts.values()) {
    for (const [key] of keys) {
      if (cachedChars <= MAX_CACHED_CHARS) return;
      keys.delete(key);
      cachedChars -= key.length;
    }
  }
}

function keyOf(text: string): string {
  if (text.length <= DIGEST_KEY_CHARS) return text;
  return `${text.length}#${sha256(text, 'base64')}`;
}

/**
 * The estimator for a tokenizer family, with counts of long texts remembered (least recently used
 * forgotten first, at most {@link MAX_CACHED_CHARS} characters of keys in all). Same name and counts
 * as `createEstimator({ family })`.
 *
 * @example
 * const manager = new ContextWindowManager({ contextLength, counter: cachedEstimator(tokenizerFamilyOf(model)) });
 */
export function cachedEstimator(family: TokenizerFamily): CachedEstimator {
  const existing = counters.get(family);
  if (existing) return existing;
  const estimator = createEstimator({ family });
  const keys = new Map<string, number>();
  counts.set(family, keys);
  const lookup = (key: string): number | undefined => {
    const known = keys.get(key);
    if (known !== undefined) {
      keys.delete(key);
      keys.set(key, known);
    }
    return known;
  };
  const remember = (key: string, value: number): void => {
    keys.set(key, value);
    cachedChars += key.length;
    if (cachedChars > MAX_CACHED_CHARS) evict();
  };
  const counter: CachedEstimator = {
    name: estimator.name,
    count(text: string): number {
      if (text.length < MIN_CACHED_CHARS) return estimator.count(text);
      const key = keyOf(text);
      const known = lookup(key);
      if (known !== undefined) return known;
      const value = estimator.count(text);
      remember(key, value);
      return value;
    },
    async warm(texts, pause) {
      for (const text of texts) {
        if (text.length < MIN_CACHED_CHARS) continue;
        const key = keyOf(text);
        if (lookup(key) !== undefined) continue;
        const steps = estimator.countInSteps(text, COUNT_STEP_CHARS);
        let step = steps.next();
        while (!step.done) {
          await pause();
          step = steps.next();
        }
        if (!keys.has(key)) remember(key, step.value);
        if (text.length > COUNT_STEP_CHARS) await pause();
      }
    },
  };
  counters.set(family, counter);
  return counter;
}

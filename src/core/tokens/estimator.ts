import {
  countFeatures,
  FEATURE_COUNT,
  finishFeatureScan,
  scanFeatures,
  startFeatureScan,
} from './char-classes.js';
import type { TokenCounter } from './token-counter.js';
import { CONSERVATIVE_FAMILIES, type TokenizerFamily } from './tokenizer-family.js';
import { FAMILY_WEIGHTS } from './weights.js';

/** Weight vectors per family; `conservative` takes, per text, the largest estimate of them all. */
function weightSetsOf(family: TokenizerFamily): ReadonlyArray<readonly number[]> {
  if (family !== 'conservative') return [FAMILY_WEIGHTS[family]];
  return CONSERVATIVE_FAMILIES.map((name) => FAMILY_WEIGHTS[name as keyof typeof FAMILY_WEIGHTS]);
}

/** Spillway's estimator: a {@link TokenCounter} that can also count a long text in steps. */
export interface Estimator extends TokenCounter {
  /**
   * Counts `text` in steps of at most `stepChars` characters, suspending after each step, with the
   * same result as `count(text)`: a caller can let other work run between steps, so one huge text
   * never holds the thread for long. Drive it to the end (`next()` until `done`) for the count.
   */
  countInSteps(text: string, stepChars: number): Generator<void, number, void>;
}

/**
 * Spillway's estimator for one tokenizer family: a linear model over character classes, fitted so
 * that it never counts fewer tokens than the real tokenizer on the training corpus (see
 * ESTIMATION in the README for the measured over-count per content class). No tokenizer is loaded;
 * one pass over the string.
 *
 * @example
 * const counter = createEstimator({ family: 'o200k' });
 * counter.count('hello world'); // a little above the real 2
 */
export function createEstimator({ family = 'conservative' }: { family?: TokenizerFamily } = {}): Estimator {
  const estimator = makeEstimator(family);
  ESTIMATORS.add(estimator);
  return estimator;
}

/** The counters {@link createEstimator} made: their counts need no check. */
const ESTIMATORS = new WeakSet<TokenCounter>();

/** Whether `counter` is one of Spillway's estimators. */
export function isEstimator(counter: TokenCounter): boolean {
  return ESTIMATORS.has(counter);
}

function makeEstimator(family: TokenizerFamily): Estimator {
  const weightSets = weightSetsOf(family).map((weights) => Float64Array.from(weights));
  const shared = new Float64Array(FEATURE_COUNT);
  const score = (counts: Float64Array): number => {
    let best = 0;
    for (const weights of weightSets) {
      let total = 0;
      for (let k = 0; k < FEATURE_COUNT; k++) total += (counts[k] as number) * (weights[k] as number);
      if (total > best) best = total;
    }
    return Math.ceil(best);
  };
  return {
    name: `spillway-estimator/${family}`,
    count(text: string): number {
      if (text === '') return 0;
      shared.fill(0);
      countFeatures(text, shared);
      return score(shared);
    },
    *countInSteps(text: string, stepChars: number): Generator<void, number, void> {
      if (text === '') return 0;
      const step = Math.max(1, Math.floor(stepChars));
      // Its own counts: several texts may be counted in steps at once.
      const counts = new Float64Array(FEATURE_COUNT);
      const state = startFeatureScan(counts);
      let index = 0;
      while (index < text.length) {
        index = scanFeatures(text, counts, state, index, Math.min(text.length, index + step));
        if (index < text.length) yield;
      }
      finishFeatureScan(counts, state);
      return score(counts);
    },
  };
}

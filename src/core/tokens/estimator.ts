import { countFeatures, FEATURE_COUNT } from './char-classes.js';
import type { TokenCounter } from './token-counter.js';
import { CONSERVATIVE_FAMILIES, type TokenizerFamily } from './tokenizer-family.js';
import { FAMILY_WEIGHTS } from './weights.js';

/** Weight vectors per family; `conservative` takes, per text, the largest estimate of them all. */
function weightSetsOf(family: TokenizerFamily): ReadonlyArray<readonly number[]> {
  if (family !== 'conservative') return [FAMILY_WEIGHTS[family]];
  return CONSERVATIVE_FAMILIES.map((name) => FAMILY_WEIGHTS[name as keyof typeof FAMILY_WEIGHTS]);
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
export function createEstimator({
  family = 'conservative',
}: {
  family?: TokenizerFamily;
} = {}): TokenCounter {
  const weightSets = weightSetsOf(family).map((weights) => Float64Array.from(weights));
  const counts = new Float64Array(FEATURE_COUNT);
  return {
    name: `spillway-estimator/${family}`,
    count(text: string): number {
      if (text === '') return 0;
      counts.fill(0);
      countFeatures(text, counts);
      let best = 0;
      for (const weights of weightSets) {
        let total = 0;
        for (let k = 0; k < FEATURE_COUNT; k++) total += (counts[k] as number) * (weights[k] as number);
        if (total > best) best = total;
      }
      return Math.ceil(best);
    },
  };
}

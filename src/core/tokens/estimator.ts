import { countFeatures, FEATURE_COUNT } from './char-classes.js';
import type { TokenCounter } from './token-counter.js';
import type { TokenizerFamily } from './tokenizer-family.js';
import { FAMILY_WEIGHTS } from './weights.js';

function conservativeWeights(): number[] {
  const families = Object.values(FAMILY_WEIGHTS) as ReadonlyArray<readonly number[]>;
  return Array.from({ length: FEATURE_COUNT }, (_, k) =>
    Math.max(...families.map((weights) => weights[k] ?? 0)),
  );
}

const WEIGHTS: Record<TokenizerFamily, readonly number[]> = {
  ...FAMILY_WEIGHTS,
  conservative: conservativeWeights(),
};

/**
 * Headroom's estimator for one tokenizer family: a linear model over character classes, fitted so
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
  const weights = Float64Array.from(WEIGHTS[family]);
  const counts = new Float64Array(FEATURE_COUNT);
  return {
    name: `headroom-estimator/${family}`,
    count(text: string): number {
      if (text === '') return 0;
      counts.fill(0);
      countFeatures(text, counts);
      let total = 0;
      for (let k = 0; k < FEATURE_COUNT; k++) total += (counts[k] as number) * (weights[k] as number);
      return Math.ceil(total);
    },
  };
}

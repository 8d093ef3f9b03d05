import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { createEstimator } from './estimator.js';
import { CONSERVATIVE_FAMILIES } from './tokenizer-family.js';

/** Drives a stepwise count to its end, counting the steps it took. */
function runSteps(steps: Generator<void, number, void>): { count: number; pauses: number } {
  let pauses = 0;
  for (;;) {
    const next = steps.next();
    if (next.done) return { count: next.value, pauses };
    pauses++;
  }
}

describe('counting in steps', () => {
  it('gives exactly the count of one pass, whatever the step size (surrogate pairs split included)', () => {
    const families = ['conservative', ...CONSERVATIVE_FAMILIES] as const;
    fc.assert(
      fc.property(
        textArbitrary,
        fc.integer({ min: 1, max: 5_000 }),
        fc.constantFrom(...families),
        (text, step, family) => {
          const estimator = createEstimator({ family: family as 'conservative' });
          const { count, pauses } = runSteps(estimator.countInSteps(text, step));
          expect(count).toBe(estimator.count(text));
          expect(pauses).toBeLessThanOrEqual(Math.ceil(text.length / step));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('pauses between steps of a long text', () => {
    const estimator = createEstimator({ family: 'o200k' });
    const text = 'camelCase words 12345 中文 😀\n'.repeat(10_000);
    const { count, pauses } = runSteps(estimator.countInSteps(text, 4_096));
    expect(count).toBe(estimator.count(text));
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(text.length / 4_096) - 1);
  });
});

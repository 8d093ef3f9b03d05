import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CUT_RUNWAY_TURNS, cutTarget, MIN_CUT_TARGET_SHARE } from './cut-target.js';

describe('cutTarget', () => {
  it('leaves room for the runway at the append rate, five turns unless told otherwise', () => {
    expect(cutTarget({ budget: 100_000, appendRate: 2_000 })).toBe(100_000 - CUT_RUNWAY_TURNS * 2_000);
    expect(cutTarget({ budget: 100_000, appendRate: 2_000, runway: 2 })).toBe(96_000);
    expect(cutTarget({ budget: 100_000, appendRate: 2_000, runway: 0 })).toBe(100_000);
  });

  it('stays within [floor share, budget] and goes no shallower as the runway grows', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000 }),
        fc.option(fc.integer({ min: 0, max: 500_000 }), { nil: undefined }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (budget, appendRate, a, b) => {
          const [shorter, longer] = a <= b ? [a, b] : [b, a];
          const near = cutTarget({ budget, appendRate, runway: shorter });
          const far = cutTarget({ budget, appendRate, runway: longer });
          expect(far).toBeLessThanOrEqual(near);
          for (const target of [near, far]) {
            expect(target).toBeLessThanOrEqual(budget);
            expect(target).toBeGreaterThanOrEqual(Math.floor(budget * MIN_CUT_TARGET_SHARE));
          }
        },
      ),
    );
  });
});

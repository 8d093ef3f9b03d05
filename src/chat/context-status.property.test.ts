import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scaleToTotal } from './context-status.js';

describe('scaleToTotal', () => {
  it('adds up to the total exactly, each part within one token of its exact share', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 200_000 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 1_000_000 }),
        (values, total) => {
          const scaled = scaleToTotal(values, total);
          expect(scaled.reduce((a, b) => a + b, 0)).toBe(total);
          const sum = values.reduce((a, b) => a + b, 0);
          if (sum === 0) return;
          scaled.forEach((part, index) => {
            expect(Math.abs(part - ((values[index] as number) * total) / sum)).toBeLessThan(1);
          });
        },
      ),
    );
  });
});

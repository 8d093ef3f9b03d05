import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadAllOverflowFixtures } from '../../../test/fixtures/overflow/overflow-fixtures.js';
import { OVERFLOW_CATALOG } from './catalog/index.js';
import { overflowScanText } from './classify-overflow.js';
import { holdsOneOf, requiredLiteralsOf, wordsOf } from './required-text.js';

const literals = requiredLiteralsOf(OVERFLOW_CATALOG);

function skippedButMatches(text: string): string[] {
  const lower = text.toLowerCase();
  const words = wordsOf(lower);
  return OVERFLOW_CATALOG.filter(
    (row, index) => row.pattern.test(text) && !holdsOneOf(lower, words, literals[index] ?? []),
  ).map((row) => row.name);
}

describe('the catalog quick test', () => {
  it('finds a required literal for nearly every row', () => {
    expect(literals.filter((row) => row.length === 0).length).toBeLessThanOrEqual(2);
  });

  it('never skips a row whose pattern matches, on every fixture body and every row example', () => {
    const texts = [
      ...loadAllOverflowFixtures().map((row) => overflowScanText({ body: row.body })),
      ...OVERFLOW_CATALOG.map((row) => overflowScanText({ body: row.example })),
    ];
    for (const text of texts) expect(skippedButMatches(text)).toEqual([]);
  });

  it('never skips a row whose pattern matches an example set in noise and changed case', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OVERFLOW_CATALOG.map((row) => row.example)),
        fc.string({ maxLength: 30 }),
        fc.string({ maxLength: 30 }),
        fc.boolean(),
        (example, before, after, upper) => {
          const text = overflowScanText({
            body: `${before}${upper ? example.toUpperCase() : example}${after}`,
          });
          expect(skippedButMatches(text)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * No row of the catalog can backtrack catastrophically: recheck's fuzzer on every row. In the e2e
 * suite (`npm run test:e2e`): it takes about half a minute and proves something that changes only
 * with the catalog.
 */
import { describe, expect, it } from 'vitest';
import { OVERFLOW_CATALOG } from './index.js';

// recheck is a development tool here: loaded only by the tests that use it.
const { checkSync } = await import('recheck');

/**
 * recheck's fuzzer, trimmed to keep the suite quick (about 0.2 s a row). It still finds the classic
 * exponential and quadratic shapes (see the last test); the full `auto` checker, which proves most rows
 * linear with its automaton, runs in `npm run eval:classify -- --redos`.
 */
const FUZZ = {
  checker: 'fuzz',
  maxIteration: 4,
  maxInitialGenerationSize: 100,
  maxGenerationSize: 50,
  timeout: 10_000,
} as const;

const rows = OVERFLOW_CATALOG.map((row) => [row.name, row] as const);

describe('OVERFLOW_CATALOG patterns', () => {
  it.each(rows)('%s: cannot backtrack catastrophically (recheck)', (_name, row) => {
    const diagnostics = checkSync(row.pattern.source, row.pattern.flags, FUZZ);
    expect(diagnostics.status).toBe('safe');
  });

  it('keeps the trimmed fuzzer able to find catastrophic patterns', () => {
    for (const source of [
      '(a+)+$',
      String.raw`error: (?:\w+\s?)+ failed`,
      String.raw`limit (?<window>\d+)\d* tokens`,
    ]) {
      expect(checkSync(source, 'i', FUZZ).status).toBe('vulnerable');
    }
  });
});

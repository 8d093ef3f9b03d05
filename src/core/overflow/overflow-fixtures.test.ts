import { describe, expect, it } from 'vitest';
import {
  figureMismatches,
  loadOverflowFixtures,
  OVERFLOW_FIXTURE_FILES,
  type OverflowFixtureRow,
} from '../../../test/fixtures/overflow/overflow-fixtures.js';
import { classifyOverflow } from './classify-overflow.js';

function classify(row: OverflowFixtureRow) {
  return classifyOverflow({ status: row.http_status ?? undefined, body: row.body });
}

describe.each(Object.entries(OVERFLOW_FIXTURE_FILES))('every row of the %s fixtures', (_, file) => {
  const rows = loadOverflowFixtures(file);

  it('has rows with a known kind and a source', () => {
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      expect(['context', 'budget', 'output_cap', 'none']).toContain(row.expected_kind);
      expect(row.source.length).toBeGreaterThan(0);
    }
  });

  it.each(rows.map((row) => [row.id, row] as const))('%s: the kind and every stated figure', (_id, row) => {
    const info = classify(row);
    expect(info.kind).toBe(row.expected_kind);
    expect(figureMismatches(row, info)).toEqual([]);
  });
});

describe('the shared fixture files', () => {
  it('reads 130 corpus rows and 23 nib rows', () => {
    expect(loadOverflowFixtures(OVERFLOW_FIXTURE_FILES.corpus)).toHaveLength(130);
    expect(loadOverflowFixtures(OVERFLOW_FIXTURE_FILES.nib)).toHaveLength(23);
  });
});

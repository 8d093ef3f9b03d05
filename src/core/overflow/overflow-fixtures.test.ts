import { describe, expect, it } from 'vitest';
import {
  DEVELOPMENT_FIXTURE_FILES,
  figureMismatches,
  HELD_OUT_FILE,
  leaveOneProviderOut,
  loadAllOverflowFixtures,
  loadOverflowFixtures,
  OVERFLOW_FIXTURE_FILES,
  type OverflowFixtureRow,
  providerCatalogRows,
  scoreClassifier,
} from '../../../test/fixtures/overflow/overflow-fixtures.js';
import { OVERFLOW_CATALOG } from './catalog/index.js';
import { classifyOverflow } from './classify-overflow.js';

function classify(row: OverflowFixtureRow) {
  return classifyOverflow({ status: row.http_status ?? undefined, body: row.body });
}

describe.each(Object.entries(DEVELOPMENT_FIXTURE_FILES))('every row of the %s fixtures', (_, file) => {
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

describe('leave-one-provider-out', () => {
  const rows = loadAllOverflowFixtures();

  it('removes the rows that fire on a provider or name it, and keeps the generic rows', () => {
    const removed = providerCatalogRows('Anthropic', rows);
    const names = [...removed].map((row) => row.name);
    expect(names).toContain('anthropic-prompt-too-long');
    expect(names).toContain('anthropic-input-and-max-tokens');
    expect(names.some((name) => name.startsWith('generic-'))).toBe(false);
    expect(removed.size).toBeLessThan(OVERFLOW_CATALOG.length);
  });

  it('classifies every provider with its own catalog rows removed: recall >= 0.97, kind >= 0.93, figures >= 0.95, no false positive', () => {
    const score = scoreClassifier(rows, leaveOneProviderOut(rows));
    expect(score.detected / score.overflows).toBeGreaterThanOrEqual(0.97);
    expect(score.kindCorrect / score.rows).toBeGreaterThanOrEqual(0.93);
    expect(score.figuresCorrect / score.figuresStated).toBeGreaterThanOrEqual(0.95);
    expect(score.falsePositives).toBe(0);
  });
});

describe('the held-out rows (real overflows no catalog row was written for)', () => {
  const rows = loadOverflowFixtures(OVERFLOW_FIXTURE_FILES[HELD_OUT_FILE]);

  it('are real rows with a source, none of them a near miss', () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
    for (const row of rows) {
      expect(row.source).toMatch(/^https:\/\//);
      expect(row.expected_kind).not.toBe('none');
    }
  });

  it("are found: recall >= 0.97 with the full catalog and with each provider's own rows removed", () => {
    const full = scoreClassifier(rows, classify);
    expect(full.detected / full.overflows).toBeGreaterThanOrEqual(0.97);
    const all = loadAllOverflowFixtures();
    const held = new Set(rows.map((row) => row.id));
    const lopo = scoreClassifier(
      all.filter((row) => held.has(row.id)),
      leaveOneProviderOut(all),
    );
    expect(lopo.detected / lopo.overflows).toBeGreaterThanOrEqual(0.97);
  });
});

describe('the near-miss corpus', () => {
  const rows = loadOverflowFixtures(OVERFLOW_FIXTURE_FILES.nearMisses);

  it('holds only near misses, each with a source', () => {
    expect(rows.length).toBeGreaterThanOrEqual(60);
    for (const row of rows) {
      expect(row.expected_kind).toBe('none');
      expect(row.source).toMatch(/^https:\/\//);
    }
  });

  it("has no false positive, with the full catalog or with each provider's own rows removed", () => {
    expect(scoreClassifier(rows, classify).falsePositives).toBe(0);
    const all = loadAllOverflowFixtures();
    const ids = new Set(rows.map((row) => row.id));
    expect(
      scoreClassifier(
        all.filter((row) => ids.has(row.id)),
        leaveOneProviderOut(all),
      ).falsePositives,
    ).toBe(0);
  });
});

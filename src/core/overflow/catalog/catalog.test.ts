import { describe, expect, it } from 'vitest';
import { classifyOverflow, overflowScanText } from '../classify-overflow.js';
import { FIGURE_GROUPS, OVERFLOW_KINDS } from '../types.js';
import { GENERIC_ROWS } from './generic.js';
import { OVERFLOW_CATALOG } from './index.js';
import { NEAR_MISS_ROWS } from './near-misses.js';

const rows = OVERFLOW_CATALOG.map((row) => [row.name, row] as const);

describe('OVERFLOW_CATALOG', () => {
  it('names every row once, in kebab-case, with a provider, a real example and its source', () => {
    const names = OVERFLOW_CATALOG.map((row) => row.name);
    expect(new Set(names).size).toBe(names.length);
    for (const row of OVERFLOW_CATALOG) {
      expect(row.name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(OVERFLOW_KINDS).toContain(row.kind);
      expect(row.provider.length).toBeGreaterThan(0);
      expect(row.example.length).toBeGreaterThan(0);
      expect(row.source.length).toBeGreaterThan(0);
    }
  });

  it('orders provider rows with figures, then near-misses, then figure-less rows, then generic wording', () => {
    const tier = (name: string) => {
      const row = OVERFLOW_CATALOG.find((candidate) => candidate.name === name);
      if (!row) throw new Error(name);
      if (NEAR_MISS_ROWS.includes(row)) return 1;
      if (GENERIC_ROWS.includes(row)) return 3;
      return /\(\?<(?:window|total|input|output|output_limit)>/.test(row.pattern.source) ? 0 : 2;
    };
    const tiers = OVERFLOW_CATALOG.map((row) => tier(row.name));
    expect([...tiers].sort()).toEqual(tiers);
    expect(new Set(tiers)).toEqual(new Set([0, 1, 2, 3]));
  });

  it.each(rows)('%s: compiles case-insensitive, stateless, with figure groups only', (_name, row) => {
    expect(row.pattern.flags).toBe('i');
    for (const [, group] of row.pattern.source.matchAll(/\(\?<([A-Za-z_$][\w$]*)>/g))
      expect(FIGURE_GROUPS as readonly string[]).toContain(group);
  });

  it.each(rows)('%s: decides its own example', (_name, row) => {
    expect(row.pattern.test(overflowScanText({ body: row.example }))).toBe(true);
    expect(classifyOverflow({ body: row.example }).pattern).toBe(row.name);
  });
});

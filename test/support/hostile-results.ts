/**
 * The hostile-input suite's own counters. Each test file records what it tried and what came out;
 * when `SPILLWAY_HOSTILE_RESULTS` names a directory (`npm run hostile` sets it), every file writes its
 * figures there as one JSON file, and `scripts/hostile-report.ts` merges them into
 * `bench/results/hostile.json`. Without it, recording costs nothing and writes nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Figures of one scenario: counts, never prose. */
export type HostileFigures = Record<string, number | string | boolean>;

const recorded = new Map<string, HostileFigures>();

/** Adds figures to a scenario (numbers are summed with what the scenario already recorded). */
export function recordHostile(scenario: string, figures: HostileFigures): void {
  const current = recorded.get(scenario) ?? {};
  for (const [key, value] of Object.entries(figures)) {
    const before = current[key];
    current[key] = typeof value === 'number' && typeof before === 'number' ? before + value : value;
  }
  recorded.set(scenario, current);
}

/** Writes what this test file recorded, if a results directory is set (call it in `afterAll`). */
export function writeHostileResults(testFile: string): void {
  const directory = process.env.SPILLWAY_HOSTILE_RESULTS;
  if (!directory || recorded.size === 0) return;
  mkdirSync(directory, { recursive: true });
  const name = basename(testFile).replace(/\.test\.ts$/, '');
  writeFileSync(
    join(directory, `${name}.json`),
    `${JSON.stringify(Object.fromEntries(recorded), null, 2)}\n`,
  );
}

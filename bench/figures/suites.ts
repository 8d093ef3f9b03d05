/** How long each test suite took, from bench/results/suites.json. */
import { count } from './format.js';

export interface SuitesResult {
  suites: Array<{
    suite: string;
    script: string;
    seconds: number;
    files: number;
    tests: number;
    failed: number;
  }>;
}

/** A table: the script, its files and tests, the failures and the wall time. */
export function suitesTable(result: SuitesResult): string {
  const rows = result.suites.map(
    ({ script, seconds, files, tests, failed }) =>
      `| \`${script}\` | ${count(files)} | ${count(tests)} | ${failed === 0 ? 'none' : count(failed)} | ${minutes(seconds)} |`,
  );
  return ['| suite | files | tests | failed | wall time |', '| --- | --- | --- | --- | --- |', ...rows].join(
    '\n',
  );
}

function minutes(seconds: number): string {
  return seconds < 90 ? `${Math.round(seconds)} s` : `${(seconds / 60).toFixed(1)} min`;
}

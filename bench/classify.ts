/**
 * `classifyOverflow` throughput over the overflow fixtures (development corpus, nib fixtures, extra
 * provider rows, servers and wrappers), warm and repeated, side by side with the peers' detectors
 * (eval/peer-detectors.ts) on the same rows in the same run; the cost of the bounded scan on hostile
 * 1 MB bodies; and a user row matched by the linear matcher on the regex that once took 19 s.
 */

import { genericDetects, litellmDetects, piDetects } from '../eval/peer-detectors.js';
import { classifyOverflow, compileLinearPattern, type OverflowPattern } from '../src/core/index.js';
import { loadAllOverflowFixtures } from '../test/fixtures/overflow/overflow-fixtures.js';
import { round, time } from './timing.js';

const MEGABYTE = 1 << 20;
const TIMING = { warmup: 5, minRuns: 20, minMs: 1_000 } as const;

function rowsPerSecond(rows: number, work: () => void): number {
  return Math.round(rows / (time(work, TIMING).medianMs / 1_000));
}

function hostileWorstMs(patterns: readonly OverflowPattern[] = []): number {
  const hostile = {
    prose: 'lorem ipsum '.repeat(MEGABYTE / 12),
    backslashes: '\\'.repeat(MEGABYTE),
    digits: '1,000 '.repeat(MEGABYTE / 6),
    letters: 'a'.repeat(MEGABYTE),
  };
  return Math.max(
    ...Object.values(hostile).map(
      (body) =>
        time(() => classifyOverflow({ status: 400, body, patterns }), { warmup: 2, minRuns: 5, minMs: 200 })
          .medianMs,
    ),
  );
}

/** The user row that passed the old ReDoS check and then took 19 s on 100 characters, as a linear row. */
function stackedRow(): OverflowPattern {
  const compiled = compileLinearPattern('^(a?){25}a{25}$');
  if (!compiled.success) throw new Error('the stacked pattern is in the linear subset');
  return { name: 'stacked', kind: 'context', pattern: compiled.pattern };
}

export async function benchClassify(): Promise<Record<string, unknown>> {
  const rows = loadAllOverflowFixtures();
  const inputs = rows.map((row) => ({ status: row.http_status ?? undefined, body: row.body }));
  const bodies = rows.map((row) => row.body);
  const spillway = rowsPerSecond(inputs.length, () => {
    for (const input of inputs) classifyOverflow(input);
  });
  const peers = {
    litellm: rowsPerSecond(bodies.length, () => {
      for (const body of bodies) litellmDetects(body);
    }),
    pi_opencode: rowsPerSecond(bodies.length, () => {
      for (const body of bodies) piDetects(body);
    }),
    generic_substrings: rowsPerSecond(bodies.length, () => {
      for (const body of bodies) genericDetects(body);
    }),
  };
  const stacked = [stackedRow()];
  const result = {
    rows: inputs.length,
    rows_per_second: spillway,
    microseconds_per_row: round(1e6 / spillway),
    hostile_1mb_body_ms: round(hostileWorstMs()),
    hostile_1mb_body_with_linear_user_row_ms: round(hostileWorstMs(stacked)),
    peers_rows_per_second: peers,
  };
  console.log(
    `classify: ${result.rows_per_second.toLocaleString('en-US')} rows/s over ${result.rows} fixture rows (${result.microseconds_per_row} µs a row); peers on the same rows: LiteLLM substrings ${peers.litellm.toLocaleString('en-US')}, pi/opencode patterns ${peers.pi_opencode.toLocaleString('en-US')}, generic substrings ${peers.generic_substrings.toLocaleString('en-US')} rows/s; worst hostile 1 MB body ${result.hostile_1mb_body_ms} ms (${result.hostile_1mb_body_with_linear_user_row_ms} ms with the ^(a?){25}a{25}$ user row)`,
  );
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchClassify();

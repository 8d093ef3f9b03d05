/**
 * `classifyOverflow` throughput over the overflow fixtures (development corpus, nib fixtures, extra
 * provider rows, servers and wrappers), warm and repeated, in rows per second of the CPU time the
 * process used (wall-clock alongside: on a shared machine it swings with other jobs), side by side
 * with the peers' detectors
 * (eval/peer-detectors.ts) on the same rows in the same run; the cost of the bounded scan on hostile
 * 1 MB bodies; and a user row matched by the linear matcher on the regex that once took 19 s.
 */

import { genericDetects, litellmDetects, piDetects } from '../eval/peer-detectors.js';
import { classifyOverflow, compileLinearPattern, type OverflowPattern } from '../src/core/index.js';
import { loadAllOverflowFixtures } from '../test/fixtures/overflow/overflow-fixtures.js';
import { round, time } from './timing.js';

const MEGABYTE = 1 << 20;
/** Batches of passes over the rows, each at least this long, so CPU time is read with room to spare. */
const BATCH_MS = 25;
const BATCHES = 30;

interface Throughput {
  /**
   * Rows per second of CPU time the process used, in the fastest batch: on a shared 2-core machine a
   * busy sibling core slows every instruction, so the fastest batch is the closest to the code's own
   * cost. The median batch and wall-clock time are reported alongside.
   */
  cpu: number;
  /** Rows per second of CPU time in the median batch. */
  cpuMedian: number;
  /** Rows per second of wall-clock time in the median batch: it also counts the time other jobs held the CPU. */
  wall: number;
}

/** Throughput of `work` (one pass over `rows` rows) over {@link BATCHES} batches, after a warm-up. */
function throughput(rows: number, work: () => void): Throughput {
  for (let index = 0; index < 20; index += 1) work();
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let batch = 0; batch < BATCHES; batch += 1) {
    const startCpu = process.cpuUsage();
    const startWall = performance.now();
    let passes = 0;
    while (performance.now() - startWall < BATCH_MS) {
      work();
      passes += 1;
    }
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1_000 / passes);
    wall.push((performance.now() - startWall) / passes);
  }
  const sorted = (values: number[]) => values.sort((a, b) => a - b);
  const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] as number;
  const perSecond = (milliseconds: number) => Math.round(rows / (milliseconds / 1_000));
  return {
    cpu: perSecond(sorted(cpu)[0] as number),
    cpuMedian: perSecond(median(cpu)),
    wall: perSecond(median(wall)),
  };
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
  const spillway = throughput(inputs.length, () => {
    for (const input of inputs) classifyOverflow(input);
  });
  const peers = {
    litellm: throughput(bodies.length, () => {
      for (const body of bodies) litellmDetects(body);
    }),
    pi_opencode: throughput(bodies.length, () => {
      for (const body of bodies) piDetects(body);
    }),
    generic_substrings: throughput(bodies.length, () => {
      for (const body of bodies) genericDetects(body);
    }),
  };
  const stacked = [stackedRow()];
  const result = {
    rows: inputs.length,
    clock: 'process CPU time, fastest of 30 batches (median_* the median batch, wall_* wall-clock)',
    rows_per_second: spillway.cpu,
    microseconds_per_row: round(1e6 / spillway.cpu),
    median_rows_per_second: spillway.cpuMedian,
    wall_rows_per_second: spillway.wall,
    hostile_1mb_body_ms: round(hostileWorstMs()),
    hostile_1mb_body_with_linear_user_row_ms: round(hostileWorstMs(stacked)),
    peers_rows_per_second: {
      litellm: peers.litellm.cpu,
      pi_opencode: peers.pi_opencode.cpu,
      generic_substrings: peers.generic_substrings.cpu,
    },
    wall_peers_rows_per_second: {
      litellm: peers.litellm.wall,
      pi_opencode: peers.pi_opencode.wall,
      generic_substrings: peers.generic_substrings.wall,
    },
  };
  console.log(
    `classify: ${result.rows_per_second.toLocaleString('en-US')} rows per CPU second over ${result.rows} fixture rows (${result.microseconds_per_row} µs a row; median batch ${result.median_rows_per_second.toLocaleString('en-US')}, wall-clock ${result.wall_rows_per_second.toLocaleString('en-US')}); peers on the same rows: LiteLLM substrings ${peers.litellm.cpu.toLocaleString('en-US')}, pi/opencode patterns ${peers.pi_opencode.cpu.toLocaleString('en-US')}, generic substrings ${peers.generic_substrings.cpu.toLocaleString('en-US')} rows/s; worst hostile 1 MB body ${result.hostile_1mb_body_ms} ms (${result.hostile_1mb_body_with_linear_user_row_ms} ms with the ^(a?){25}a{25}$ user row)`,
  );
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchClassify();

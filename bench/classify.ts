/**
 * `classifyOverflow` throughput over the overflow fixtures (development corpus, nib fixtures, extra
 * provider rows), warm and repeated, plus the cost of the bounded scan on hostile 1 MB bodies.
 */
import { classifyOverflow } from '../src/core/index.js';
import { loadOverflowFixtures, OVERFLOW_FIXTURE_FILES } from '../test/fixtures/overflow/overflow-fixtures.js';
import { round, time } from './timing.js';

const MEGABYTE = 1 << 20;

export async function benchClassify(): Promise<Record<string, number>> {
  const rows = Object.values(OVERFLOW_FIXTURE_FILES).flatMap((file) => loadOverflowFixtures(file));
  const inputs = rows.map((row) => ({ status: row.http_status ?? undefined, body: row.body }));
  const corpus = time(
    () => {
      for (const input of inputs) classifyOverflow(input);
    },
    { warmup: 5, minRuns: 20, minMs: 1_000 },
  );
  const rowsPerSecond = inputs.length / (corpus.medianMs / 1_000);
  const hostile = {
    prose: 'lorem ipsum '.repeat(MEGABYTE / 12),
    backslashes: '\\'.repeat(MEGABYTE),
    digits: '1,000 '.repeat(MEGABYTE / 6),
  };
  const worst = Math.max(
    ...Object.values(hostile).map(
      (body) =>
        time(() => classifyOverflow({ status: 400, body }), { warmup: 2, minRuns: 5, minMs: 200 }).medianMs,
    ),
  );
  const result = {
    rows: inputs.length,
    rows_per_second: Math.round(rowsPerSecond),
    microseconds_per_row: round((corpus.medianMs * 1_000) / inputs.length),
    hostile_1mb_body_ms: round(worst),
  };
  console.log(
    `classify: ${result.rows_per_second.toLocaleString('en-US')} rows/s over ${result.rows} fixture rows (${result.microseconds_per_row} µs a row); worst hostile 1 MB body ${result.hostile_1mb_body_ms} ms`,
  );
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchClassify();

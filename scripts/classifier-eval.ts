/**
 * Measures `classifyOverflow` on the overflow fixtures: recall (overflow rows classified as any
 * overflow kind), kind accuracy (exact kind, all rows), false positives (rows labelled none classified
 * as an overflow) and figure accuracy, per file. Also measures an ablation with only the generic and
 * near-miss rows, and leave-one-provider-out: each provider's rows classified with the catalog rows
 * that fire on them or name their provider removed, the estimate for a server never seen.
 * Run: `npm run eval:classify` (add `-- --redos` to also run recheck's full checker on every row).
 */
import { classifyOverflow, OVERFLOW_CATALOG, type OverflowRow } from '../src/core/index.js';
import {
  type ClassifierScore,
  leaveOneProviderOut,
  loadAllOverflowFixtures,
  loadOverflowFixtures,
  OVERFLOW_FIXTURE_FILES,
  type OverflowFixtureRow,
  scoreClassifier,
} from '../test/fixtures/overflow/overflow-fixtures.js';

const percent = (part: number, whole: number) =>
  whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;

function line(name: string, score: ClassifierScore): string {
  return [
    name.padEnd(22),
    String(score.rows).padStart(5),
    `${score.detected}/${score.overflows} ${percent(score.detected, score.overflows)}`.padStart(16),
    `${score.kindCorrect}/${score.rows} ${percent(score.kindCorrect, score.rows)}`.padStart(16),
    `${score.falsePositives}/${score.negatives}`.padStart(8),
    `${score.figuresCorrect}/${score.figuresStated} ${percent(score.figuresCorrect, score.figuresStated)}`.padStart(
      16,
    ),
  ].join('  ');
}

function evaluate(title: string, catalog: readonly OverflowRow[], { showMisses = true } = {}): void {
  const classify = (row: OverflowFixtureRow) =>
    classifyOverflow({ status: row.http_status ?? undefined, body: row.body, catalog });
  console.log(`\n${title}`);
  console.log(
    `${'file'.padEnd(22)}  ${'rows'.padStart(5)}  ${'recall'.padStart(16)}  ${'kind accuracy'.padStart(16)}  ${'false +'.padStart(8)}  ${'figures exact'.padStart(16)}`,
  );
  const all: OverflowFixtureRow[] = [];
  for (const [name, file] of Object.entries(OVERFLOW_FIXTURE_FILES)) {
    const rows = loadOverflowFixtures(file);
    all.push(...rows);
    const score = scoreClassifier(rows, classify);
    console.log(line(name, score));
    if (showMisses && score.misses.length > 0)
      console.log(`${' '.repeat(24)}misses: ${score.misses.join(', ')}`);
  }
  console.log(line('all', scoreClassifier(all, classify)));
}

evaluate(`classifyOverflow, full catalog (${OVERFLOW_CATALOG.length} rows)`, OVERFLOW_CATALOG);
const fallback = OVERFLOW_CATALOG.filter((row) => row.generic === true || row.kind === 'none');
evaluate(`ablation: generic and near-miss rows only (${fallback.length} rows)`, fallback, {
  showMisses: false,
});

{
  const rows = loadAllOverflowFixtures();
  const classify = leaveOneProviderOut(rows);
  const providers = new Set(rows.map((row) => row.provider)).size;
  console.log(`\nleave-one-provider-out (${providers} providers, each without its own catalog rows)`);
  const score = scoreClassifier(rows, classify);
  console.log(line('all', score));
  for (const id of score.misses) {
    const row = rows.find((candidate) => candidate.id === id) as OverflowFixtureRow;
    const info = classify(row);
    console.log(
      `  ${id} (${row.provider}): expected ${row.expected_kind}, got ${info.kind} via ${info.pattern}`,
    );
  }
}

if (process.argv.includes('--redos')) {
  // Loaded only when asked for: recheck is a development tool, never on the runtime path.
  const { checkSync } = await import('recheck');
  console.log('\nrecheck (auto checker, 60 s a row at most):');
  for (const row of OVERFLOW_CATALOG) {
    const diagnostics = checkSync(row.pattern.source, row.pattern.flags, { timeout: 60_000 });
    const detail = diagnostics.status === 'unknown' ? diagnostics.error.kind : diagnostics.complexity.summary;
    console.log(`  ${row.name.padEnd(44)} ${diagnostics.status} (${detail})`);
  }
}

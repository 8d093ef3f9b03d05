/**
 * Classifier evaluation: recall, kind accuracy, false positives and figure extraction of
 * `classifyOverflow` on the overflow fixtures, side by side with the detection logic of LiteLLM,
 * pi / opencode and a generic substring list (eval/peer-detectors.ts), on the same rows; the same
 * per fixture file (the development corpus); leave-one-provider-out: each provider's rows
 * classified with that provider's catalog rows removed, the honest figure for a server never seen;
 * and the held-out overflows and the near-miss corpus on their own, both ways.
 */
import { classifyOverflow, OVERFLOW_CATALOG, type OverflowInfo } from '../src/core/index.js';
import {
  type ClassifierScore,
  HELD_OUT_FILE,
  leaveOneProviderOut,
  loadAllOverflowFixtures,
  loadOverflowFixtures,
  OVERFLOW_FIXTURE_FILES,
  type OverflowFixtureRow,
  scoreClassifier,
} from '../test/fixtures/overflow/overflow-fixtures.js';
import { genericDetects, litellmDetects, piDetects } from './peer-detectors.js';

const asInfo = (detected: boolean, pattern: string): OverflowInfo => ({
  kind: detected ? 'context' : 'none',
  pattern,
});

// The catalog was written against these rows. Its generic and near-miss rows alone (with the generic
// layer, which is always on) estimate what a wording no provider row was written for gets.
const GENERIC_ROWS = OVERFLOW_CATALOG.filter((row) => row.generic === true || row.kind === 'none');

const classify = (row: OverflowFixtureRow) =>
  classifyOverflow({ status: row.http_status ?? undefined, body: row.body });

const DETECTORS: Record<string, (row: OverflowFixtureRow) => OverflowInfo> = {
  spillway: classify,
  spillway_generic_rows_only: (row) =>
    classifyOverflow({ status: row.http_status ?? undefined, body: row.body, catalog: GENERIC_ROWS }),
  litellm: (row) => asInfo(litellmDetects(row.body), 'litellm'),
  pi_opencode: (row) => asInfo(piDetects(row.body), 'pi'),
  generic_substrings: (row) => asInfo(genericDetects(row.body), 'generic'),
};

/** The figures of one score, under the keys eval-classifier.json has always used. */
export function summarize(score: ClassifierScore): Record<string, number> {
  return {
    ...(score.overflows > 0 && { recall: Number((score.detected / score.overflows).toFixed(3)) }),
    kind_accuracy: Number((score.kindCorrect / score.rows).toFixed(3)),
    false_positives: score.falsePositives,
    negatives: score.negatives,
    figures_exact: Number((score.figuresCorrect / Math.max(1, score.figuresStated)).toFixed(3)),
  };
}

/** The counts behind {@link summarize}'s ratios. */
function counts(score: ClassifierScore): Record<string, number> {
  return {
    rows: score.rows,
    overflows: score.overflows,
    detected: score.detected,
    kind_correct: score.kindCorrect,
    figures_stated: score.figuresStated,
    figures_correct: score.figuresCorrect,
  };
}

/**
 * One fixture file scored with the full catalog and leave-one-provider-out (each row classified
 * without the catalog rows of its own provider), with the ids the latter gets wrong.
 */
function scoreFile(
  rows: readonly OverflowFixtureRow[],
  file: keyof typeof OVERFLOW_FIXTURE_FILES,
  leaveOut: (row: OverflowFixtureRow) => OverflowInfo,
): Record<string, unknown> {
  const ids = new Set(loadOverflowFixtures(OVERFLOW_FIXTURE_FILES[file]).map((row) => row.id));
  const own = rows.filter((row) => ids.has(row.id));
  const full = scoreClassifier(own, classify);
  const lopo = scoreClassifier(own, leaveOut);
  return {
    ...summarize(full),
    ...counts(full),
    leave_one_provider_out: { ...summarize(lopo), ...counts(lopo), misses: lopo.misses },
  };
}

export async function evalClassifier(): Promise<Record<string, unknown>> {
  const rows = loadAllOverflowFixtures();
  const results: Record<string, unknown> = { rows: rows.length };
  for (const [name, detect] of Object.entries(DETECTORS))
    results[name] = summarize(scoreClassifier(rows, detect));
  const leaveOut = leaveOneProviderOut(rows);
  const lopo = scoreClassifier(rows, leaveOut);
  results.held_out = scoreFile(rows, HELD_OUT_FILE, leaveOut);
  results.near_misses = scoreFile(rows, 'nearMisses', leaveOut);
  results.spillway_leave_one_provider_out = {
    ...summarize(lopo),
    ...counts(lopo),
    providers: new Set(rows.map((row) => row.provider)).size,
    misses: lopo.misses,
  };
  results.development_corpus = Object.fromEntries(
    Object.entries(OVERFLOW_FIXTURE_FILES).map(([name, file]) => {
      const score = scoreClassifier(loadOverflowFixtures(file), classify);
      return [name, { ...summarize(score), ...counts(score) }];
    }),
  );
  return results;
}

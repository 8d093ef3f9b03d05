/**
 * Classifier evaluation: recall, kind accuracy and false positives of `classifyOverflow` on the
 * overflow fixtures, side by side with the detection logic of LiteLLM, pi / opencode and a generic
 * substring list (eval/peer-detectors.ts), on the same rows.
 */
import { classifyOverflow, OVERFLOW_CATALOG, type OverflowInfo } from '../src/core/index.js';
import {
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

// The catalog was written against these rows. Its generic and near-miss rows alone estimate what a
// wording no provider row was written for gets: a lower bound on generalization.
const GENERIC_ROWS = OVERFLOW_CATALOG.filter((row) => row.generic === true || row.kind === 'none');

const DETECTORS: Record<string, (row: OverflowFixtureRow) => OverflowInfo> = {
  spillway: (row) => classifyOverflow({ status: row.http_status ?? undefined, body: row.body }),
  spillway_generic_rows_only: (row) =>
    classifyOverflow({ status: row.http_status ?? undefined, body: row.body, catalog: GENERIC_ROWS }),
  litellm: (row) => asInfo(litellmDetects(row.body), 'litellm'),
  pi_opencode: (row) => asInfo(piDetects(row.body), 'pi'),
  generic_substrings: (row) => asInfo(genericDetects(row.body), 'generic'),
};

export async function evalClassifier(): Promise<Record<string, unknown>> {
  const rows = Object.values(OVERFLOW_FIXTURE_FILES).flatMap((file) => loadOverflowFixtures(file));
  const results: Record<string, unknown> = { rows: rows.length };
  for (const [name, detect] of Object.entries(DETECTORS)) {
    const score = scoreClassifier(rows, detect);
    results[name] = {
      recall: Number((score.detected / score.overflows).toFixed(3)),
      kind_accuracy: Number((score.kindCorrect / score.rows).toFixed(3)),
      false_positives: score.falsePositives,
      negatives: score.negatives,
      figures_exact: Number((score.figuresCorrect / Math.max(1, score.figuresStated)).toFixed(3)),
    };
  }
  return results;
}

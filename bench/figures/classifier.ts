/** Overflow classification: accuracy (eval-classifier.json) and throughput (classify.json). */
import { count, fixed, percent, table, times } from './format.js';

interface Scores {
  recall: number;
  kind_accuracy: number;
  false_positives: number;
  negatives: number;
  figures_exact: number;
}

interface Counted extends Scores {
  rows: number;
  overflows: number;
  detected: number;
  kind_correct: number;
  figures_stated: number;
  figures_correct: number;
}

/** One fixture file scored with the full catalog and leave one provider out. */
interface FileScore extends Counted {
  leave_one_provider_out: Counted & { misses: string[] };
}

export interface ClassifierResult {
  rows: number;
  spillway: Scores;
  spillway_generic_rows_only: Scores;
  litellm: Scores;
  pi_opencode: Scores;
  generic_substrings: Scores;
  spillway_leave_one_provider_out: Counted & { providers: number; misses: string[] };
  development_corpus: Record<string, Counted>;
  held_out?: FileScore;
  near_misses?: FileScore;
}

const FIXTURE_NAMES: Record<string, string> = {
  corpus: 'corpus',
  nib: 'nib',
  extra: 'extra providers',
  servers: 'servers and wrappers',
  nearMisses: 'near misses',
  heldOut: 'held out (no catalog row written for them)',
};

function countedRow(name: string, row: Counted): string[] {
  const share = (part: number, whole: number) =>
    whole === 0 ? 'n/a' : `${part}/${whole} (${percent(part / whole, 0)})`;
  return [
    name,
    String(row.rows),
    share(row.detected, row.overflows),
    share(row.kind_correct, row.rows),
    `${row.false_positives}/${row.negatives}`,
    `${row.figures_correct}/${row.figures_stated}`,
  ];
}

/**
 * Each fixture file, and leave one provider out over all of them; then the held-out overflows and
 * the near-miss corpus, each scored both ways.
 */
export function classifierFixtureTable(result: ClassifierResult): string {
  const loo = result.spillway_leave_one_provider_out;
  const heldOut = classifierHeldOut(result);
  const rows = table(
    ['fixtures', 'rows', 'recall', 'kind accuracy', 'false positives', 'figures exact'],
    [
      ...Object.entries(result.development_corpus).map(([name, row]) =>
        countedRow(FIXTURE_NAMES[name] ?? name, row),
      ),
      countedRow(`**leave one provider out** (all files, ${loo.providers} providers)`, loo),
    ],
  );
  return heldOut === '' ? rows : `${rows}\n\n${heldOut}`;
}

/**
 * The held-out overflows and the near-miss corpus, each with the full catalog and with every
 * provider's own catalog rows removed.
 */
export function classifierHeldOut(result: ClassifierResult): string {
  const { held_out: held, near_misses: near } = result;
  if (!held || !near) return '';
  const share = (part: number, whole: number) =>
    `${part}/${whole} (${percent(whole === 0 ? 1 : part / whole, 0)})`;
  const lopo = held.leave_one_provider_out;
  return [
    `Held out: ${share(held.detected, held.overflows)} of the overflows found with the full catalog, ${share(lopo.detected, lopo.overflows)} with each provider's own rows removed.`,
    `Near misses: ${near.false_positives} of ${near.negatives} called an overflow with the full catalog, ${near.leave_one_provider_out.false_positives} with each provider's own rows removed.`,
  ].join(' ');
}

/** The rows leave-one-provider-out misses. */
export function classifierMisses(result: ClassifierResult): string {
  const misses = result.spillway_leave_one_provider_out.misses;
  return misses.length === 0 ? 'none' : misses.map((miss) => `\`${miss}\``).join(', ');
}

/** Spillway side by side with the peers' detectors on the same rows. */
export function classifierPeerTable(result: ClassifierResult): string {
  const row = (name: string, scores: Scores) => [
    name,
    percent(scores.recall),
    percent(scores.kind_accuracy),
    String(scores.false_positives),
  ];
  return table(
    ['detector', 'recall', 'kind accuracy', `false positives (of ${result.spillway.negatives} negatives)`],
    [
      row('Spillway (catalog and generic layer)', result.spillway),
      row('Spillway, leave one provider out', result.spillway_leave_one_provider_out),
      row('Spillway, generic rows and generic layer only', result.spillway_generic_rows_only),
      row('LiteLLM-style substrings', result.litellm),
      row('pi / opencode pattern lists', result.pi_opencode),
      row('generic "context"/"token" substrings', result.generic_substrings),
    ],
  );
}

export interface ClassifyThroughput {
  rows: number;
  rows_per_second: number;
  microseconds_per_row: number;
  median_rows_per_second: number;
  wall_rows_per_second: number;
  hostile_1mb_body_ms: number;
  hostile_1mb_body_with_linear_user_row_ms: number;
  peers_rows_per_second: { litellm: number; pi_opencode: number; generic_substrings: number };
}

export function classifyThroughput(result: ClassifyThroughput): string {
  const peers = result.peers_rows_per_second;
  return `${count(result.rows_per_second)} rows per second of the process's CPU time over the ${result.rows} fixture rows (${fixed(result.microseconds_per_row, 2)} µs a row), in the fastest of 30 batches (the median batch ${count(result.median_rows_per_second)}, and ${count(result.wall_rows_per_second)} per wall-clock second), against ${count(peers.litellm)} for LiteLLM's substring checks (${times(peers.litellm / result.rows_per_second)} faster), ${count(peers.pi_opencode)} for the pi / opencode pattern list and ${count(peers.generic_substrings)} for a generic substring list on the same rows in the same run, measured the same way (they answer yes or no, with no kind and no figures); a hostile 1 MB body in ${fixed(result.hostile_1mb_body_ms, 2)} ms, ${fixed(result.hostile_1mb_body_with_linear_user_row_ms, 2)} ms with the \`^(a?){25}a{25}$\` user row.`;
}

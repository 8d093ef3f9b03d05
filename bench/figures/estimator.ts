/** The estimator's accuracy (eval-estimator.json) and cost (estimate.json, bounded-send.json). */
import { count, fixed, percent, table, times } from './format.js';

interface ClassFigures {
  under_count_rate: number;
  median: number;
  p95: number;
}

/** One pair's figures over a whole held-out set (real files, other scripts). */
interface SetFigures {
  under_counted: number;
  lowest: number;
  median: number;
  p95: number;
}

interface HeldOutSet {
  samples: number;
  families: Record<string, SetFigures>;
}

export interface EstimatorResult {
  samples: number;
  families: Record<string, Record<string, ClassFigures>>;
  real_files: HeldOutSet;
  scripts: HeldOutSet;
  after_calibration: {
    requests: number;
    under_counted: number;
    median_after_first: number;
    first_request_ratio: number;
  };
}

/** Per content class, estimate / real for the o200k weights against o200k, in two columns of classes. */
export function estimatorClassTable(result: EstimatorResult): string {
  const classes = Object.entries(result.families.o200k_vs_o200k ?? {}).filter(([name]) => name !== 'ALL');
  const half = Math.ceil(classes.length / 2);
  const cells = (entry: [string, ClassFigures] | undefined) =>
    entry
      ? [entry[0], percent(entry[1].under_count_rate, 0), fixed(entry[1].median), fixed(entry[1].p95)]
      : ['', '', '', ''];
  const rows = classes
    .slice(0, half)
    .map((entry, index) => [...cells(entry), '', ...cells(classes[half + index])]);
  return table(
    ['class', 'under-counted', 'median', 'p95', '', 'class', 'under-counted', 'median', 'p95'],
    rows,
  );
}

const FAMILY_NAMES: Record<string, string> = {
  o200k: 'o200k',
  cl100k: 'cl100k',
  claude_legacy: 'Claude (legacy)',
  llama2: 'Llama 2',
  mistral: 'Mistral',
  llama3: 'Llama 3',
  qwen2: 'Qwen 2',
};

/** `o200k_vs_o200k` → `o200k`; `conservative_vs_llama3` → `conservative vs Llama 3`. */
function pairName(key: string): string {
  const [family = key, reference = key] = key.split('_vs_');
  const name = (id: string) => FAMILY_NAMES[id] ?? id;
  return family === 'conservative' ? `conservative vs ${name(reference)}` : name(family);
}

/** The content classes of the mixed corpus (every key but the overall `ALL`). */
function classCount(result: EstimatorResult): number {
  const first = Object.values(result.families)[0] ?? {};
  return Object.keys(first).filter((name) => name !== 'ALL').length;
}

/** Every pair on the mixed corpus, the held-out real files and the text in other scripts. */
export function estimatorHeldOutTable(result: EstimatorResult): string {
  const rows = Object.entries(result.families).map(([key, classes]) => {
    const all = classes.ALL as ClassFigures;
    const files = result.real_files.families[key];
    const scripts = result.scripts.families[key];
    return [
      pairName(key),
      `${fixed(all.median)} / ${fixed(all.p95)}`,
      files ? String(files.under_counted) : '–',
      files ? `${fixed(files.median)} / ${fixed(files.p95)}` : '–',
      scripts ? String(scripts.under_counted) : '–',
      scripts ? `${fixed(scripts.median)} / ${fixed(scripts.p95)}` : '–',
    ];
  });
  const lead = `Samples: ${count(result.samples)} in the mixed corpus, ${count(result.real_files.samples)} held-out real files, ${count(result.scripts.samples)} in other scripts; estimate / real as median / p95, and the under-counted samples.`;
  return `${lead}\n\n${table(
    [
      'weights vs tokenizer',
      'mixed corpus',
      'real files under-counted',
      'real files',
      'other scripts under-counted',
      'other scripts',
    ],
    rows,
  )}`;
}

/** Every family against its own tokenizer, and `conservative` against each. */
export function estimatorSummary(result: EstimatorResult): string {
  const own = Object.entries(result.families)
    .filter(([key]) => !key.startsWith('conservative'))
    .map(([key, classes]) => {
      const family = key.split('_vs_')[0] as string;
      const all = classes.ALL as ClassFigures;
      return `${FAMILY_NAMES[family] ?? family} ${fixed(all.median)} / ${fixed(all.p95)}`;
    });
  const conservative = Object.entries(result.families)
    .filter(([key]) => key.startsWith('conservative'))
    .map(([key, classes]) => {
      const reference = key.split('_vs_')[1] as string;
      const all = classes.ALL as ClassFigures;
      const under =
        all.under_count_rate > 0 ? `, under-counts ${percent(all.under_count_rate, 0)} of samples` : '';
      return `${FAMILY_NAMES[reference] ?? reference} ${fixed(all.median)}${under}`;
    });
  const calibrated = result.after_calibration;
  const verb = calibrated.under_counted === 1 ? 'was' : 'were';
  return `Estimate / real over ${count(result.samples)} held-out samples in ${classCount(result)} content classes, median / p95 per family against its own tokenizer: ${own.join(', ')}; the under-count rate is ${Object.entries(result.families).every(([key, classes]) => key.startsWith('conservative') || classes.ALL?.under_count_rate === 0) ? '0 for every family' : 'above 0 for some family'}. The \`conservative\` default (median against each tokenizer): ${conservative.join('; ')}. After calibration on the emulator's reported usage, ${calibrated.under_counted} of ${calibrated.requests} requests ${verb} under-counted, median ${fixed(calibrated.median_after_first)} after the first (${fixed(calibrated.first_request_ratio)} on the first, before any usage).`;
}

export interface EstimateThroughput {
  corpus_mb: number;
  raw_scan_mb_s: number;
  spillway_mb_s: number;
  tokenx_mb_s: number;
  gpt_tokenizer_mb_s: number;
  js_tiktoken_mb_s: number;
}

export interface BoundedSend {
  messages: number;
  real_tokens_o200k: number;
  incremental_fit_ms: number;
  full_reestimate_ms: number;
}

/** Estimation throughput against peers on the same corpus in the same run. */
export function estimateThroughput(result: EstimateThroughput): string {
  const ratio = (peer: number) => times(result.spillway_mb_s / peer);
  return `On the same ${fixed(result.corpus_mb, 1)} MB mixed corpus in the same run: raw \`charCodeAt\` scan ${fixed(result.raw_scan_mb_s, 0)} MB/s (the ceiling), Spillway's estimator ${fixed(result.spillway_mb_s, 0)} MB/s, tokenx ${fixed(result.tokenx_mb_s, 1)} MB/s (Spillway ${ratio(result.tokenx_mb_s)}), gpt-tokenizer ${fixed(result.gpt_tokenizer_mb_s, 2)} MB/s (${ratio(result.gpt_tokenizer_mb_s)}), js-tiktoken ${fixed(result.js_tiktoken_mb_s, 2)} MB/s (${ratio(result.js_tiktoken_mb_s)}).`;
}

/** An incremental fit against a full re-estimate of the same request. */
export function boundedSendLine(result: BoundedSend): string {
  return `Fitting a ${count(result.messages)}-message, ${count(result.real_tokens_o200k)}-token transcript after appending one turn takes ${fixed(result.incremental_fit_ms, 2)} ms (only the new messages are estimated; the rest is walked with cached estimates) against ${fixed(result.full_reestimate_ms, 1)} ms for a full re-estimate (${times(result.full_reestimate_ms / result.incremental_fit_ms)}).`;
}

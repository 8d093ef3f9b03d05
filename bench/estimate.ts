/**
 * Estimation throughput on a ~20 MB mixed corpus: Spillway's estimator against tokenx (a heuristic
 * estimator), gpt-tokenizer and js-tiktoken (real BPE tokenizers) and a raw single pass over the
 * string (`charCodeAt`, the practical ceiling for anything that reads every character). Every
 * counter reads the same strings in the same run; ratios are what carries to other machines.
 */
import { countTokens as gptTokenizerCount } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { estimateTokenCount } from 'tokenx';
import { createEstimator } from '../src/core/index.js';
import { buildMixedCorpus } from '../test/corpus/mixed-corpus.js';
import { round, time } from './timing.js';

function rawScan(texts: readonly string[]): number {
  let sum = 0;
  for (const text of texts) for (let index = 0; index < text.length; index++) sum += text.charCodeAt(index);
  return sum;
}

export async function benchEstimate(): Promise<Record<string, number>> {
  // 16 classes × 650 samples of up to 4,000 characters: about 20 MB of UTF-8.
  const texts = [11, 12, 13, 14, 15].flatMap((seed) =>
    buildMixedCorpus({ seed, samplesPerClass: 130 }).map((sample) => sample.text),
  );
  const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  const megabytes = bytes / 1e6;
  const spillway = createEstimator({ family: 'o200k' });
  const tiktoken = getEncoding('o200k_base');
  const counters: Record<string, () => number> = {
    raw_scan: () => rawScan(texts),
    spillway: () => texts.reduce((sum, text) => sum + spillway.count(text), 0),
    tokenx: () => texts.reduce((sum, text) => sum + estimateTokenCount(text), 0),
    gpt_tokenizer: () => texts.reduce((sum, text) => sum + gptTokenizerCount(text), 0),
    js_tiktoken: () => texts.reduce((sum, text) => sum + tiktoken.encode(text).length, 0),
  };
  const result: Record<string, number> = { corpus_mb: round(megabytes, 1), samples: texts.length };
  for (const [name, count] of Object.entries(counters)) {
    const slow = name === 'gpt_tokenizer' || name === 'js_tiktoken';
    const timing = time(
      count,
      slow ? { warmup: 1, minRuns: 1, minMs: 0 } : { warmup: 1, minRuns: 3, minMs: 500 },
    );
    result[`${name}_mb_s`] = round(megabytes / (timing.medianMs / 1_000), 2);
  }
  const spillwayRate = result.spillway_mb_s as number;
  for (const name of ['tokenx', 'gpt_tokenizer', 'js_tiktoken'])
    result[`spillway_over_${name}`] = round(spillwayRate / (result[`${name}_mb_s`] as number), 1);
  result.spillway_share_of_raw_scan = round(spillwayRate / (result.raw_scan_mb_s as number), 2);
  return result;
}

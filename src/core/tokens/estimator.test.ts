import { describe, expect, it } from 'vitest';
import {
  formatAccuracyTable,
  measureSamples,
  type ReferenceName,
  summarizeByClass,
} from '../../../test/corpus/accuracy.js';
import { buildMixedCorpus } from '../../../test/corpus/mixed-corpus.js';
import { createEstimator } from './estimator.js';
import type { TokenizerFamily } from './tokenizer-family.js';

// Seeds 1 and 2 are never used for fitting (scripts/fit-estimator.ts trains on 101-106).
const samples = [
  ...buildMixedCorpus({ seed: 1, samplesPerClass: 40 }),
  ...buildMixedCorpus({ seed: 2, samplesPerClass: 40, maxChars: 800 }),
];

const cases: Array<[TokenizerFamily, ReferenceName]> = [
  ['o200k', 'o200k'],
  ['cl100k', 'cl100k'],
  ['conservative', 'o200k'],
  ['conservative', 'cl100k'],
  ['conservative', 'claude_legacy'],
  ['conservative', 'llama3'],
  ['claude_legacy', 'claude_legacy'],
  ['llama2', 'llama2'],
  ['mistral', 'mistral'],
  ['llama3', 'llama3'],
];

describe('the estimator against real tokenizers', () => {
  it.each(cases)(
    'never counts fewer tokens than %s weights need for %s, on any held-out sample',
    (family, reference) => {
      const results = measureSamples(samples, createEstimator({ family }), reference);
      const under = results.filter((result) => result.estimate < result.real);
      const rows = summarizeByClass(results);
      console.info(formatAccuracyTable(`estimator ${family} vs ${reference} (estimate / real)`, rows));
      expect(under.map((result) => `${result.sample.id}: ${result.estimate} < ${result.real}`)).toEqual([]);
    },
  );

  it('counts the empty string as zero and any other string as at least one token', () => {
    const counter = createEstimator({ family: 'o200k' });
    expect(counter.count('')).toBe(0);
    expect(counter.count('a')).toBeGreaterThanOrEqual(1);
  });

  it('counts text from scripts it was not fitted on at no less than one token per UTF-8 byte it could need', () => {
    const counter = createEstimator({ family: 'o200k' });
    const khmer = 'ភាសាខ្មែរ'.repeat(20);
    expect(counter.count(khmer)).toBeGreaterThanOrEqual(khmer.length * 3 - 3);
  });
});

describe('tokenizerFamilyOf', () => {
  it('places models by id and leaves the rest to the conservative family', async () => {
    const { tokenizerFamilyOf } = await import('./tokenizer-family.js');
    expect(tokenizerFamilyOf('gpt-4o-2024-08-06')).toBe('o200k');
    expect(tokenizerFamilyOf('openai/gpt-oss-20b')).toBe('o200k');
    expect(tokenizerFamilyOf('gpt-4-turbo')).toBe('cl100k');
    expect(tokenizerFamilyOf('claude-sonnet-4-5-20250929')).toBe('claude_legacy');
    expect(tokenizerFamilyOf('meta-llama/Llama-3.1-8B-Instruct')).toBe('llama3');
    expect(tokenizerFamilyOf('meta-llama/Llama-2-7b-chat-hf')).toBe('llama2');
    expect(tokenizerFamilyOf('mistralai/Mixtral-8x7B-Instruct-v0.1')).toBe('mistral');
    expect(tokenizerFamilyOf('Qwen/Qwen2.5-7B-Instruct')).toBe('conservative');
    expect(tokenizerFamilyOf(undefined)).toBe('conservative');
  });
});

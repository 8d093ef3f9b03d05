import { describe, expect, it } from 'vitest';
import {
  ACCURACY_CASES,
  formatAccuracyTable,
  heldOutRealSamples,
  heldOutSamples,
  measureSamples,
  summarizeByClass,
} from '../../../test/corpus/accuracy.js';
import { createEstimator } from './estimator.js';

const samples = heldOutSamples();
const realSamples = heldOutRealSamples();

describe('the estimator against real tokenizers', () => {
  it.each(ACCURACY_CASES)(
    'never counts fewer tokens than %s weights need for %s, on any held-out sample',
    (family, reference) => {
      const results = measureSamples(samples, createEstimator({ family }), reference);
      const under = results.filter((result) => result.estimate < result.real);
      const rows = summarizeByClass(results);
      console.info(formatAccuracyTable(`estimator ${family} vs ${reference} (estimate / real)`, rows));
      expect(under.map((result) => `${result.sample.id}: ${result.estimate} < ${result.real}`)).toEqual([]);
    },
  );

  it.each(ACCURACY_CASES)(
    'never counts fewer tokens than %s weights need for %s, on held-out real files and other scripts',
    (family, reference) => {
      const results = measureSamples(realSamples, createEstimator({ family }), reference);
      const under = results.filter((result) => result.estimate < result.real);
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

  it('places an id the same way again, after more ids than it remembers', async () => {
    const { tokenizerFamilyOf } = await import('./tokenizer-family.js');
    for (let index = 0; index < 2_500; index++)
      expect(tokenizerFamilyOf(`org/gpt-4o-${index}`)).toBe('o200k');
    expect(tokenizerFamilyOf('org/gpt-4o-7')).toBe('o200k');
    expect(tokenizerFamilyOf('gpt-4-turbo')).toBe('cl100k');
    expect(tokenizerFamilyOf('GPT-4-TURBO')).toBe('cl100k');
  });
});

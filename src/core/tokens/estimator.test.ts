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
  ['conservative', 'llama2'],
  ['conservative', 'mistral'],
  ['conservative', 'llama3'],
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

/**
 * Prints the estimator's accuracy against o200k and cl100k per content class on the held-out corpus
 * (seeds 1 and 2), as the accuracy test measures it. Run: `npm run accuracy`.
 */
import { createEstimator, type TokenizerFamily } from '../src/core/index.js';
import {
  formatAccuracyTable,
  measureSamples,
  type ReferenceName,
  summarizeByClass,
} from '../test/corpus/accuracy.js';
import { buildMixedCorpus } from '../test/corpus/mixed-corpus.js';

const samples = [
  ...buildMixedCorpus({ seed: 1, samplesPerClass: 40 }),
  ...buildMixedCorpus({ seed: 2, samplesPerClass: 40, maxChars: 800 }),
];
const cases: Array<[TokenizerFamily, ReferenceName]> = [
  ['o200k', 'o200k'],
  ['cl100k', 'cl100k'],
  ['claude_legacy', 'claude_legacy'],
  ['llama2', 'llama2'],
  ['mistral', 'mistral'],
  ['llama3', 'llama3'],
  ['conservative', 'o200k'],
  ['conservative', 'cl100k'],
  ['conservative', 'claude_legacy'],
  ['conservative', 'llama2'],
  ['conservative', 'mistral'],
  ['conservative', 'llama3'],
];
for (const [family, reference] of cases) {
  console.log(
    formatAccuracyTable(
      `\nestimator ${family} vs ${reference} (estimate / real, ${samples.length} held-out samples)`,
      summarizeByClass(measureSamples(samples, createEstimator({ family }), reference)),
    ),
  );
}

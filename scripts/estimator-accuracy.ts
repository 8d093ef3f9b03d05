/**
 * Prints the estimator's accuracy against six real tokenizers per content class on the held-out corpus
 * (seeds 1 and 2), as the accuracy test measures it. Run: `npm run accuracy`.
 */
import { createEstimator } from '../src/core/index.js';
import {
  ACCURACY_CASES,
  formatAccuracyTable,
  heldOutSamples,
  measureSamples,
  summarizeByClass,
} from '../test/corpus/accuracy.js';

const samples = heldOutSamples();
for (const [family, reference] of ACCURACY_CASES) {
  console.log(
    formatAccuracyTable(
      `\nestimator ${family} vs ${reference} (estimate / real, ${samples.length} held-out samples)`,
      summarizeByClass(measureSamples(samples, createEstimator({ family }), reference)),
    ),
  );
}

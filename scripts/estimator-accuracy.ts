/**
 * Prints the estimator's accuracy against six real tokenizers per content class on the held-out
 * corpus (seeds 1 and 2), then on held-out real files from node_modules and on text in other
 * scripts, as the accuracy tests measure them. Run: `npm run accuracy`.
 */
import { createEstimator } from '../src/core/index.js';
import {
  ACCURACY_CASES,
  formatAccuracyTable,
  heldOutRealSamples,
  heldOutSamples,
  measureSamples,
  summarizeByClass,
} from '../test/corpus/accuracy.js';

const sets = [
  { name: 'held-out samples', samples: heldOutSamples() },
  { name: 'held-out real files and other scripts', samples: heldOutRealSamples() },
];
for (const { name, samples } of sets)
  for (const [family, reference] of ACCURACY_CASES)
    console.log(
      formatAccuracyTable(
        `\nestimator ${family} vs ${reference} (estimate / real, ${samples.length} ${name})`,
        summarizeByClass(measureSamples(samples, createEstimator({ family }), reference)),
      ),
    );

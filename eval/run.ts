/**
 * `npm run eval`: estimator accuracy, classifier side by side with peers, the recovery scenario
 * matrix and real agent sessions replayed at small windows, printed as side-by-side tables and
 * written to bench/results/<name>.json with the command, date and machine. Deterministic (seeded).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { printFigures } from '../bench/figures/index.js';
import { runStamp } from '../bench/stamp.js';

/** Each evaluation by the name `npm run eval -- NAME` takes; it writes bench/results/<file or name>.json. */
const EVALS: Array<{ name: string; file?: string; load: () => Promise<() => Promise<unknown>> }> = [
  { name: 'eval-estimator', load: async () => (await import('./estimator.js')).evalEstimator },
  { name: 'eval-classifier', load: async () => (await import('./classifier.js')).evalClassifier },
  { name: 'recovery', load: async () => (await import('./recovery/index.js')).evalRecovery },
  { name: 'eval-transcripts', load: async () => (await import('./transcripts.js')).evalTranscripts },
  { name: 'kept', file: 'eval-kept', load: async () => (await import('./kept/index.js')).evalKept },
];

const results = new URL('../bench/results/', import.meta.url);
mkdirSync(results, { recursive: true });
const only = process.argv.slice(2);
const started = Date.now();
for (const entry of EVALS) {
  if (only.length > 0 && !only.includes(entry.name)) continue;
  const run = await entry.load();
  const stamp = runStamp(`npm run eval -- ${entry.name}`);
  const begin = Date.now();
  const output = { ...stamp, ...((await run()) as object) };
  console.log(`\n## ${entry.name} (${((Date.now() - begin) / 1000).toFixed(1)} s)\n`);
  const file = `${entry.file ?? entry.name}.json`;
  console.log(printFigures(file, output) ?? JSON.stringify(output, null, 2));
  writeFileSync(new URL(file, results), `${JSON.stringify(output, null, 2)}\n`);
}
console.log(`\neval done in ${((Date.now() - started) / 1000).toFixed(1)} s`);

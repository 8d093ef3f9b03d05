/**
 * `npm run eval`: estimator accuracy, classifier side by side with peers, the recovery scenario
 * matrix and real agent sessions replayed at small windows, printed and written to bench/results/<name>.json. Deterministic (seeded).
 */
import { mkdirSync, writeFileSync } from 'node:fs';

const EVALS: Array<{ name: string; load: () => Promise<() => Promise<unknown>> }> = [
  { name: 'eval-estimator', load: async () => (await import('./estimator.js')).evalEstimator },
  { name: 'eval-classifier', load: async () => (await import('./classifier.js')).evalClassifier },
  { name: 'recovery', load: async () => (await import('./recovery.js')).evalRecovery },
  { name: 'eval-transcripts', load: async () => (await import('./transcripts.js')).evalTranscripts },
];

const results = new URL('../bench/results/', import.meta.url);
mkdirSync(results, { recursive: true });
const only = process.argv.slice(2);
const started = Date.now();
for (const entry of EVALS) {
  if (only.length > 0 && !only.includes(entry.name)) continue;
  const run = await entry.load();
  const begin = Date.now();
  const result = await run();
  console.log(
    `\n## ${entry.name} (${((Date.now() - begin) / 1000).toFixed(1)} s)\n${JSON.stringify(result, null, 2)}`,
  );
  writeFileSync(
    new URL(`${entry.name}.json`, results),
    // A list (recovery: one object per strategy) is written as it is; an object gets the run's node and date.
    `${JSON.stringify(Array.isArray(result) ? result : { node: process.version, date: new Date().toISOString(), ...(result as object) }, null, 2)}\n`,
  );
}
console.log(`\neval done in ${((Date.now() - started) / 1000).toFixed(1)} s`);

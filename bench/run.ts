/**
 * `npm run bench`: every benchmark, printed and written to bench/results/<name>.json. Ratios compare
 * peers measured in the same run on the same machine; absolute figures depend on the machine.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import type { PerSendPoint } from './per-send.js';

interface Stamp {
  node: string;
  date: string;
}

interface Bench {
  name: string;
  module: string;
  run: string;
  /** An HTML page drawn from the result, written beside the JSON as bench/results/<name>.html. */
  report?: (result: unknown, stamp: Stamp) => Promise<string>;
}

const BENCHES: Bench[] = [
  { name: 'estimate', module: './estimate.js', run: 'benchEstimate' },
  { name: 'bounded-send', module: './bounded-send.js', run: 'benchBoundedSend' },
  {
    name: 'per-send',
    module: './per-send.js',
    run: 'benchPerSend',
    report: async (result, stamp) =>
      (await import('./report.js')).perSendReport((result as { points: PerSendPoint[] }).points, stamp),
  },
  { name: 'classify', module: './classify.js', run: 'benchClassify' },
  { name: 'schemas', module: './schemas.js', run: 'benchSchemas' },
  { name: 'proxy', module: './proxy.js', run: 'benchProxy' },
  { name: 'demo', module: './demo.js', run: 'benchDemo' },
  { name: 'limits', module: './limits.js', run: 'benchLimits' },
];

const results = new URL('./results/', import.meta.url);
if (!existsSync(results)) mkdirSync(results, { recursive: true });
const only = process.argv.slice(2);
for (const bench of BENCHES) {
  if (only.length > 0 && !only.includes(bench.name)) continue;
  // A benchmark whose module is not in this checkout is skipped; any other failure is an error.
  if (!existsSync(new URL(bench.module.replace(/\.js$/, '.ts'), import.meta.url))) continue;
  const module = (await import(bench.module)) as Record<string, unknown>;
  const run = module[bench.run] as () => Promise<unknown>;
  const started = Date.now();
  const result = await run();
  console.log(
    `\n## ${bench.name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n${JSON.stringify(result, null, 2)}`,
  );
  const stamp: Stamp = { node: process.version, date: new Date().toISOString() };
  writeFileSync(
    new URL(`${bench.name}.json`, results),
    `${JSON.stringify({ ...stamp, ...(result as object) }, null, 2)}\n`,
  );
  if (bench.report) writeFileSync(new URL(`${bench.name}.html`, results), await bench.report(result, stamp));
}

/**
 * `npm run bench`: every benchmark, printed as side-by-side tables (ratios between peers measured in
 * the same run on the same machine) and written to bench/results/<name>.json with the command, date
 * and machine. Absolute figures depend on the machine; `npm run readme:figures` puts them in the README.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { printFigures } from './figures/index.js';
import { runStamp } from './stamp.js';

interface Bench {
  name: string;
  module: string;
  run: string;
  /** An HTML page drawn from the result, written beside the JSON as bench/results/<name>.html. */
  report?: (result: unknown) => Promise<string>;
  /** Run only when named (`npm run bench -- NAME`): it takes as long as what it times. */
  byName?: boolean;
}

const BENCHES: Bench[] = [
  { name: 'estimate', module: './estimate.js', run: 'benchEstimate' },
  { name: 'bounded-send', module: './bounded-send.js', run: 'benchBoundedSend' },
  {
    name: 'per-send',
    module: './per-send.js',
    run: 'benchPerSend',
    report: async (result) => (await import('./report.js')).perSendReport(result as never),
  },
  { name: 'classify', module: './classify.js', run: 'benchClassify' },
  { name: 'schemas', module: './schemas.js', run: 'benchSchemas' },
  { name: 'proxy', module: './proxy.js', run: 'benchProxy' },
  { name: 'memory', module: './memory.js', run: 'benchMemory' },
  { name: 'proxy-peers', module: './proxy-peers.js', run: 'benchProxyPeers' },
  { name: 'fresh-bodies', module: './fresh-bodies.js', run: 'benchFreshBodies' },
  { name: 'startup', module: './startup.js', run: 'benchStartup' },
  { name: 'cli', module: './cli.js', run: 'benchCli' },
  { name: 'demo', module: './demo.js', run: 'benchDemo' },
  { name: 'limits', module: './limits.js', run: 'benchLimits' },
  { name: 'chat', module: './chat.js', run: 'benchChat' },
  { name: 'suites', module: './suites.js', run: 'benchSuites', byName: true },
];

const results = new URL('./results/', import.meta.url);
if (!existsSync(results)) mkdirSync(results, { recursive: true });
const only = process.argv.slice(2);
for (const bench of BENCHES) {
  if (only.length > 0 ? !only.includes(bench.name) : bench.byName) continue;
  // A benchmark whose module is not in this checkout is skipped; any other failure is an error.
  if (!existsSync(new URL(bench.module.replace(/\.js$/, '.ts'), import.meta.url))) continue;
  const module = (await import(bench.module)) as Record<string, unknown>;
  const run = module[bench.run] as () => Promise<unknown>;
  const stamp = runStamp(`npm run bench -- ${bench.name}`);
  const started = Date.now();
  const output = { ...stamp, ...((await run()) as object) };
  console.log(`\n## ${bench.name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  console.log(printFigures(`${bench.name}.json`, output) ?? JSON.stringify(output, null, 2));
  writeFileSync(new URL(`${bench.name}.json`, results), `${JSON.stringify(output, null, 2)}\n`);
  if (bench.report) writeFileSync(new URL(`${bench.name}.html`, results), await bench.report(output));
}

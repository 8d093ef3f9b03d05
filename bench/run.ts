/**
 * `npm run bench`: every benchmark, printed and written to bench/results/<name>.json. Ratios compare
 * peers measured in the same run on the same machine; absolute figures depend on the machine.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';

interface Bench {
  name: string;
  module: string;
  run: string;
}

const BENCHES: Bench[] = [
  { name: 'bounded-send', module: './bounded-send.js', run: 'benchBoundedSend' },
  { name: 'classify', module: './classify.js', run: 'benchClassify' },
];

const results = new URL('./results/', import.meta.url);
if (!existsSync(results)) mkdirSync(results, { recursive: true });
const only = process.argv.slice(2);
for (const bench of BENCHES) {
  if (only.length > 0 && !only.includes(bench.name)) continue;
  let module: Record<string, unknown>;
  try {
    module = (await import(bench.module)) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') continue;
    throw error;
  }
  const run = module[bench.run] as () => Promise<unknown>;
  const started = Date.now();
  const result = await run();
  console.log(
    `\n## ${bench.name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n${JSON.stringify(result, null, 2)}`,
  );
  writeFileSync(
    new URL(`${bench.name}.json`, results),
    `${JSON.stringify({ node: process.version, date: new Date().toISOString(), ...(result as object) }, null, 2)}\n`,
  );
}

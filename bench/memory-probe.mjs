/**
 * Loaded with `--import` into the `spillway serve` process the memory benchmark measures: on the
 * IPC message `measure` it runs a full garbage collection that compacts the heap (the process runs
 * with `--expose-gc`; V8 compacts this way when memory runs short) and answers with its memory
 * figures, so what is measured is what the process keeps, not the pages V8 has not returned yet.
 * The channel is unreferenced, so it never keeps the process alive.
 */
import { setFlagsFromString } from 'node:v8';

process.channel?.unref();
process.on('message', (message) => {
  if (message !== 'measure') return;
  setFlagsFromString('--compact-on-every-full-gc');
  globalThis.gc?.();
  globalThis.gc?.();
  const usage = process.memoryUsage();
  process.send?.({ rss: usage.rss, heapUsed: usage.heapUsed });
});

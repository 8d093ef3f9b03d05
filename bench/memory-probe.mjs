/**
 * Loaded with `--import` into the `spillway serve` process the memory benchmark measures: on the
 * IPC message `measure` it runs a full garbage collection that compacts the heap (the process runs
 * with `--expose-gc`; V8 compacts this way when memory runs short) and answers with its memory
 * figures, so what is measured is what the process keeps, not the pages V8 has not returned yet,
 * with the size V8 reserves for its young generation.
 * The channel is unreferenced, so it never keeps the process alive.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

process.channel?.unref();
process.on('message', (message) => {
  if (message !== 'measure') return;
  setFlagsFromString('--compact-on-every-full-gc');
  globalThis.gc?.();
  globalThis.gc?.();
  const usage = process.memoryUsage();
  // The young generation's reserved space: V8 sizes it by how much survives (Node 20: up to two
  // 16 MB semi-spaces) and keeps it once grown, empty after the collection above.
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
  process.send?.({ rss: usage.rss, heapUsed: usage.heapUsed, young });
});

/**
 * Loaded with `--import` into the `spillway serve` process the memory benchmark measures: on the
 * IPC message `measure` it runs a full garbage collection that compacts the heap (the process runs
 * with `--expose-gc`; V8 compacts this way when memory runs short), waits for resident memory to
 * settle, and answers with its memory figures, the size V8 reserves for its young generation among
 * them: what is measured is what the process keeps, not pages V8 has freed and not yet returned.
 * The channel is unreferenced, so it never keeps the process alive.
 */
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * Resident memory by kind, from /proc/self/status (Linux): `RssAnon` is the process's own memory
 * (heaps, stacks, buffers); `RssFile` is pages of files it maps (the node binary's code and the ICU
 * data in it), read in as code runs and dropped by the kernel when it wants them back.
 */
function residentByKind() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    return { anon: kb('RssAnon'), file: kb('RssFile') };
  } catch {
    return { anon: Number.NaN, file: Number.NaN };
  }
}

/** How often, how long at least and at most, resident memory is read after the collection. */
const SETTLE_STEP_MS = 500;
const SETTLE_MIN_MS = 1_000;
const SETTLE_MAX_MS = 10_000;
/** Two readings this close apart in bytes count as settled. */
const SETTLED_BYTES = 1024 * 1024;

/**
 * Resident memory once it stops falling: V8 hands the pages a compaction emptied back to the system
 * from a background task, so right after the collection the process still holds tens of MB it has
 * already let go of.
 */
function afterRssSettles(done) {
  let last = process.memoryUsage.rss();
  let waited = 0;
  const step = () => {
    const now = process.memoryUsage.rss();
    waited += SETTLE_STEP_MS;
    if ((waited >= SETTLE_MIN_MS && Math.abs(now - last) < SETTLED_BYTES) || waited >= SETTLE_MAX_MS) done();
    else setTimeout(step, SETTLE_STEP_MS);
    last = now;
  };
  setTimeout(step, SETTLE_STEP_MS);
}

process.channel?.unref();
process.on('message', (message) => {
  if (message !== 'measure') return;
  setFlagsFromString('--compact-on-every-full-gc');
  globalThis.gc?.();
  globalThis.gc?.();
  afterRssSettles(() => {
    const usage = process.memoryUsage();
    // The young generation's reserved space: V8 sizes it by how much survives (Node 20: up to two
    // 16 MB semi-spaces), mostly keeps it once grown, and is empty after the collection above.
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
    const { anon, file } = residentByKind();
    process.send?.({ rss: usage.rss, heapUsed: usage.heapUsed, young, anon, file });
  });
});

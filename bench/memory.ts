/**
 * `spillway serve`'s memory under many conversations and model names: the real command from the
 * package, built first, with its memory store, in its own process, against a local upstream in this
 * one. Three stretches of 10,000 conversations over 3,000 model names each are sent, new names every
 * stretch (each conversation a first request with six tool results, about 10 KB); the proxy's
 * resident memory (store, caches and heap together) is read after a compacting garbage collection
 * once a warm-up is done and again after every stretch. The first stretch's growth is what the load
 * left behind; by the last the store's caps and the caches' sizes are full, and it must add nothing.
 *
 * `npx tsx bench/memory.ts` runs it alone; `npm run bench -- memory` as part of the suite.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fakeToolResult } from '../src/emulator/index.js';
import { builtCli } from './http-load.js';
import { round } from './timing.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The growth the proxy must stay under for the first stretch (the reliability promise). */
export const MEMORY_GROWTH_LIMIT_MB = 60;

/**
 * What the last stretch may add once the caps are full: a process's resident memory moves by a few
 * MB between two readings of the same state (pages the allocators keep or give back).
 */
export const PLATEAU_LIMIT_MB = 10;

/** Options of {@link benchMemory}. */
export interface BenchMemoryOptions {
  conversations?: number;
  models?: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Runs, each in a fresh process; the figures are the median run's. */
  rounds?: number;
  /** Stretches of `conversations` conversations in each run, each over new model names. */
  stretches?: number;
}

/** What {@link benchMemory} reports. */
export interface MemoryBenchResult {
  conversations: number;
  models: number;
  requests: number;
  ok: number;
  /** Resident memory after the warm-up and after the load, after garbage collection, in MB. */
  rssBeforeMb: number;
  rssAfterMb: number;
  rssGrowthMb: number;
  /**
   * How much of {@link rssGrowthMb} is the young generation's space V8 enlarged under the load (it
   * grows to two 16 MB semi-spaces when much survives, and keeps them): sizing, not what the load
   * left. Whether it has grown by the end of the warm-up is chance, so it is told apart.
   */
  youngGrowthMb: number;
  /** {@link rssGrowthMb} without {@link youngGrowthMb}: what the load left, held to {@link limitMb}. */
  keptGrowthMb: number;
  heapGrowthMb: number;
  limitMb: number;
  /** Seconds the first stretch took. */
  seconds: number;
  /** Memory after the warm-up and after each stretch: conversations sent so far, and MB. */
  readings: Array<{
    conversations: number;
    rssMb: number;
    /** The young generation's reserved space: V8 grows and shrinks it as it sees fit. */
    youngMb: number;
    heapUsedMb: number;
    /** Resident memory of the process's own (`RssAnon`) and of files it maps (`RssFile`; code). */
    anonMb: number;
    fileMb: number;
  }>;
  /**
   * Growth over the last stretch, the caps already full: resident memory as a whole (V8 may have
   * resized its young generation in between, either way), the process's own part of it, and the
   * live heap.
   */
  lastStretch: { rssGrowthMb: number; anonGrowthMb: number; heapGrowthMb: number };
  plateauLimitMb: number;
  /**
   * Each run's growths, in MB (the figures above are the median run's): runs differ by a few MB,
   * with how V8 sized its young generation and how the allocators laid memory out.
   */
  runs: Array<{
    rssGrowthMb: number;
    youngGrowthMb: number;
    keptGrowthMb: number;
    heapGrowthMb: number;
    lastRssGrowthMb: number;
    lastHeapGrowthMb: number;
  }>;
}

type RunFigures = Omit<MemoryBenchResult, 'runs'>;

interface Memory {
  rss: number;
  heapUsed: number;
  /** Bytes V8 reserves for the young generation (its new space), empty after the collection. */
  young: number;
  /** Resident bytes of the process's own memory, and of files it maps (Linux; NaN elsewhere). */
  anon: number;
  file: number;
}

const MB = 1024 * 1024;

/** One conversation's first request: its own head, a few tool rounds, one of the model names. */
function conversation(index: number, models: number, names = 'bench-model'): string {
  const messages: unknown[] = [
    { role: 'system', content: `You are agent ${index}, working in repository ${index % 97}.` },
    { role: 'user', content: `Task ${index}: find why the budget test fails and fix it.` },
  ];
  for (let turn = 0; turn < 6; turn++) {
    const id = `call_${index}_${turn}`;
    const args = JSON.stringify({ path: `src/module-${index % 50}/file-${turn}.ts` });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: args } }],
    });
    messages.push({
      role: 'tool',
      tool_call_id: id,
      content: fakeToolResult({ name: 'read_file', args, seed: index * 7 + turn, size: 400 }),
    });
  }
  return JSON.stringify({ model: `${names}-${index % models}`, messages, max_tokens: 256 });
}

/** An upstream that answers every chat request at once, with usage as a server reports it. */
async function startUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== '/v1/chat/completions') {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
        return;
      }
      const bytes = Buffer.concat(chunks).length;
      const reply = JSON.stringify({
        id: 'chatcmpl-memory',
        object: 'chat.completion',
        created: 1,
        model: 'bench',
        choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
        usage: {
          prompt_tokens: Math.round(bytes / 4),
          completion_tokens: 1,
          total_tokens: Math.round(bytes / 4) + 1,
        },
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`spillway serve exited with ${code} before listening`)));
  });
}

/** How long the proxy is left idle before it is measured: timers and sockets of the load settle. */
const IDLE_MS = 5_000;

async function measure(child: ChildProcess): Promise<Memory> {
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as Memory));
    child.send('measure');
  });
}

/** Sends `bodies` through the proxy, `concurrency` at a time; resolves with the 2xx count. */
async function load(url: string, bodies: (index: number) => string, count: number, concurrency: number) {
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bodies(index),
      });
      await response.arrayBuffer();
      if (response.ok) ok++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ok;
}

/**
 * Runs `spillway serve --store memory` `rounds` times, each in a fresh process: warms it up, sends
 * `stretches` stretches of `conversations` conversations over `models` new model names each, and
 * reports its resident memory after garbage collection: the first stretch's growth, and the last's
 * (the caps full by then), the figures of the run whose first growth is the median.
 *
 * @example
 * const { keptGrowthMb } = await benchMemory({ conversations: 10_000, models: 3_000 });
 */
export async function benchMemory({
  rounds = 3,
  ...options
}: BenchMemoryOptions = {}): Promise<MemoryBenchResult> {
  const runs: RunFigures[] = [];
  for (let round = 0; round < rounds; round++) runs.push(await oneRun(options));
  // The run whose growth is the median, whole: figures from one process agree with each other.
  const byGrowth = [...runs].sort((left, right) => left.keptGrowthMb - right.keptGrowthMb);
  const middle = byGrowth[Math.floor((byGrowth.length - 1) / 2)] as RunFigures;
  return {
    ...middle,
    ok: Math.min(...runs.map((run) => run.ok)),
    runs: runs.map(({ rssGrowthMb, youngGrowthMb, keptGrowthMb, heapGrowthMb, lastStretch }) => ({
      rssGrowthMb,
      youngGrowthMb,
      keptGrowthMb,
      heapGrowthMb,
      lastRssGrowthMb: lastStretch.rssGrowthMb,
      lastHeapGrowthMb: lastStretch.heapGrowthMb,
    })),
  };
}

async function oneRun({
  conversations = 10_000,
  models = 3_000,
  concurrency = 16,
  stretches = 3,
}: Omit<BenchMemoryOptions, 'rounds'>): Promise<RunFigures> {
  const directory = mkdtempSync(join(tmpdir(), 'spillway-bench-memory-'));
  const upstream = await startUpstream();
  const config = join(directory, 'proxy.json');
  writeFileSync(config, JSON.stringify({ context_length: 32_768 }));
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      pathToFileURL(join(ROOT, 'bench', 'memory-probe.mjs')).href,
      builtCli(),
      'serve',
      '--upstream',
      upstream.url,
      '--port',
      '0',
      '--store',
      'memory',
      '--config',
      config,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore', 'ipc'] },
  );
  try {
    const url = await listening(child);
    // The warm-up loads what every process holds once (code, the estimator, sockets) on names
    // the measured load does not use.
    await load(
      url,
      (index) => conversation(stretches * conversations + index, 50, 'warm-model'),
      500,
      concurrency,
    );
    const readings: Memory[] = [await measure(child)];
    let ok = 0;
    let seconds = 0;
    for (let stretch = 0; stretch < stretches; stretch++) {
      const started = performance.now();
      ok += await load(
        url,
        (index) => conversation(stretch * conversations + index, models, `bench-model-${stretch}`),
        conversations,
        concurrency,
      );
      if (stretch === 0) seconds = (performance.now() - started) / 1_000;
      readings.push(await measure(child));
    }
    const [before, after] = readings as [Memory, Memory];
    const last = readings.at(-1) as Memory;
    const previous = readings.at(-2) as Memory;
    return {
      conversations,
      models,
      requests: conversations * stretches,
      ok,
      rssBeforeMb: round(before.rss / MB, 1),
      rssAfterMb: round(after.rss / MB, 1),
      rssGrowthMb: round((after.rss - before.rss) / MB, 1),
      youngGrowthMb: round((after.young - before.young) / MB, 1),
      keptGrowthMb: round((after.rss - after.young - (before.rss - before.young)) / MB, 1),
      heapGrowthMb: round((after.heapUsed - before.heapUsed) / MB, 1),
      limitMb: MEMORY_GROWTH_LIMIT_MB,
      seconds: round(seconds, 1),
      readings: readings.map((memory, index) => ({
        conversations: index * conversations,
        rssMb: round(memory.rss / MB, 1),
        youngMb: round(memory.young / MB, 1),
        heapUsedMb: round(memory.heapUsed / MB, 1),
        anonMb: round(memory.anon / MB, 1),
        fileMb: round(memory.file / MB, 1),
      })),
      lastStretch: {
        rssGrowthMb: round((last.rss - previous.rss) / MB, 1),
        anonGrowthMb: round((last.anon - previous.anon) / MB, 1),
        heapGrowthMb: round((last.heapUsed - previous.heapUsed) / MB, 1),
      },
      plateauLimitMb: PLATEAU_LIMIT_MB,
    };
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) resolve();
      else {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }
    });
    upstream.server.closeAllConnections();
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()));
    rmSync(directory, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  console.log(JSON.stringify(await benchMemory(), null, 2));

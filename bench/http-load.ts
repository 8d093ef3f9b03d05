/**
 * What the HTTP benchmarks share: processes started from the sources and spoken to over IPC, load
 * from autocannon, and one-client-at-a-time latency timed here to the microsecond.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmulatorRequestRecord } from '../src/emulator/index.js';
import { round } from './timing.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Histogram {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The part of autocannon's result the benchmarks read. */
export interface AutocannonResult {
  latency: Histogram;
  requests: Histogram & { total: number; sent: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}

/** autocannon's run: its result, and its events as they happen. */
type AutocannonRun = Promise<AutocannonResult> & {
  on(event: 'response', listener: () => void): void;
};

type Autocannon = (options: Record<string, unknown>) => AutocannonRun;

// autocannon ships no type declarations; this is the part of its API the benchmarks use.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One measured phase. */
export interface PhaseFigures {
  requests: number;
  ok: number;
  errors: number;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

/** A TypeScript file of this repository run as a process (`tsx`), stdout piped, with IPC. */
export function spawnTsx(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
}

let built: string | undefined;

/**
 * The built command line, `dist/cli/bin.js`: what `npx spillway` runs, and what the benchmarks that
 * start a `spillway` process measure (run from the sources, every closure would pay for `tsx`'s
 * transform, which keeps function names with a call per closure made). The package is built from
 * the sources as they are, once per process.
 */
export function builtCli(): string {
  if (built === undefined) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    built = join(ROOT, 'dist', 'cli', 'bin.js');
  }
  return built;
}

/** `spillway` from the built package ({@link builtCli}) as a process, stdout piped, with IPC. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [builtCli(), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
}

/** The rest of the first line of a process's stdout that starts with `prefix`. */
export function firstLine(child: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const line = out.split('\n').find((candidate) => candidate.startsWith(prefix));
      if (line) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(line.slice(prefix.length).trim());
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${prefix.trim()} process exited with ${code}`)));
  });
}

/** Sends `message` over IPC and resolves the child's next message. */
export function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (reply) => resolve(reply as T));
    child.send(message);
  });
}

/** Stops a child with SIGTERM and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A phase's figures from autocannon's result and the time {@link load} measured, to its last response. */
export function figures(result: AutocannonResult & { seconds: number }): PhaseFigures {
  return {
    requests: result.requests.total,
    ok: result['2xx'],
    errors: result.errors + result.timeouts + result.non2xx,
    requestsPerSecond: round(result.requests.total / result.seconds, 1),
    p50Ms: result.latency.p50,
    p90Ms: result.latency.p90,
    p99Ms: result.latency.p99,
  };
}

const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer sk-bench' };

/**
 * autocannon's run, timed here from its start to its last response. autocannon ends a run of
 * `amount` requests only at its next sample, once a second (lib/run.js `tickInterval`), so its own
 * end and `duration` round a run up to whole seconds: timed to its end, a run of 1.2 s counts as
 * 2 s, and a target that needs a little more than a second looks twice as slow as one that needs a
 * little less.
 */
export async function load(
  url: string,
  body: string,
  { connections, amount, timeout }: { connections: number; amount: number; timeout: number },
) {
  const started = performance.now();
  let last = started;
  const run = autocannon({
    url: `${url}/v1/chat/completions`,
    method: 'POST',
    headers: HEADERS,
    body,
    idReplacement: true,
    connections,
    amount,
    timeout,
  });
  run.on('response', () => {
    last = performance.now();
  });
  const result = await run;
  return { ...result, seconds: (last - started) / 1_000 };
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}

/**
 * One client, one request at a time, timed here to the microsecond (autocannon's latencies are whole
 * milliseconds): latency without queueing, so the difference between two paths is the cost of one.
 * The body's `[<id>]` is replaced by a unique id, as autocannon does.
 */
export async function sequential(url: string, body: string, amount: number): Promise<PhaseFigures> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  let ok = 0;
  const started = performance.now();
  for (let index = 0; index < amount; index++) {
    const payload = body.replace('[<id>]', `seq-${index}-${Math.random().toString(36).slice(2)}`);
    const begin = performance.now();
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(
        `${url}/v1/chat/completions`,
        { method: 'POST', agent, headers: HEADERS },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
    samples.push(performance.now() - begin);
    if (status === 200) ok++;
  }
  const seconds = (performance.now() - started) / 1_000;
  agent.destroy();
  samples.sort((a, b) => a - b);
  return {
    requests: amount,
    ok,
    errors: amount - ok,
    requestsPerSecond: round(amount / seconds, 1),
    p50Ms: round(percentile(samples, 0.5), 3),
    p90Ms: round(percentile(samples, 0.9), 3),
    p99Ms: round(percentile(samples, 0.99), 3),
  };
}

/** The mean of the proxy's `spillway_proxy_added_latency_seconds` histogram, as sum and count. */
export function addedLatency(metrics: string): { sum: number; count: number } {
  const sum = Number(/^spillway_proxy_added_latency_seconds_sum (\S+)$/m.exec(metrics)?.[1] ?? 0);
  const count = Number(/^spillway_proxy_added_latency_seconds_count (\S+)$/m.exec(metrics)?.[1] ?? 0);
  return { sum, count };
}

/** Clock ticks per second (`getconf CLK_TCK`, 100 on Linux unless configured otherwise). */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * The CPU time (user + system) a running process has used, in milliseconds, from `/proc/PID/stat`
 * (Linux); `undefined` elsewhere. Unlike throughput, it hardly moves when other jobs load the machine.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After the ")": state is field 3, so utime (14) and stime (15) are at 11 and 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * The emulator side of a proxy benchmark, run in its own process: it serves the emulated vLLM,
 * prints `listening on URL`, and answers over IPC with the prompt count of a body (`count:JSON`) or
 * with the `user` ids of the chat requests it received (anything else), for the lost-or-duplicated
 * check.
 */
export async function serveBenchEmulator({
  model,
  contextLength,
}: {
  model: string;
  contextLength: number;
}): Promise<void> {
  const { countPromptTokens, startEmulator } = await import('../src/emulator/index.js');
  const emulator = await startEmulator({ profile: 'vllm', model, contextLength });
  // The emulator keeps a record of every request with its body. A run sends some 100,000 bodies of
  // 74 KB: kept, they grow the upstream's heap through the run, and its collections (longer as it
  // grows) land in whichever phase is running. Each answered request's id is taken, and its body
  // let go, as the run goes.
  const ids: string[] = [];
  let taken = 0;
  /** Takes the ids of the requests answered so far (`all`: of every request, answered or not). */
  const take = (all: boolean): void => {
    const { requests } = emulator;
    for (; taken < requests.length; taken++) {
      const record = requests[taken] as EmulatorRequestRecord;
      if (record.status === 0 && !all) return;
      if (record.path === '/v1/chat/completions')
        ids.push(String((record.body as { user?: unknown } | undefined)?.user ?? ''));
      delete record.body;
    }
  };
  setInterval(() => take(false), 50).unref();
  process.on('message', (message: string) => {
    if (message.startsWith('count:')) {
      process.send?.({ tokens: countPromptTokens(JSON.parse(message.slice('count:'.length))).tokens });
      return;
    }
    take(true);
    process.send?.({ ids });
  });
  process.once('SIGTERM', () => {
    void emulator.close().then(() => process.exit(0));
  });
  process.stdout.write(`listening on ${emulator.url}\n`);
}

/**
 * `spillway serve` under load on loopback: the emulator in one process, the proxy (the real
 * `spillway serve` command from the package, built first, SQLite store) in another, autocannon in
 * this one. The same requests go to the emulator directly and through the proxy in the same run; the
 * difference in latency is what the proxy adds. Every request carries a unique id, and the emulator's request log is checked for
 * requests lost or duplicated.
 *
 * `npx tsx bench/proxy.ts` runs it alone; `npm run bench -- proxy` as part of the suite.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fakeToolResult } from '../src/emulator/index.js';
import { median } from '../test/support/median.js';
import {
  addedLatency,
  ask,
  figures,
  firstLine,
  load,
  type PhaseFigures,
  sequential,
  serveBenchEmulator,
  spawnCli,
  spawnTsx,
  stop,
} from './http-load.js';
import { round } from './timing.js';

const SELF = fileURLToPath(import.meta.url);
const MODEL = 'bench-model';

/** Options of {@link benchProxy}. */
export interface BenchProxyOptions {
  /** Concurrent clients. */
  connections?: number;
  /** Requests per measured phase (direct, then proxied). */
  amount?: number;
  /** How often the two phases alternate under load; figures are medians over rounds. */
  rounds?: number;
  /** Tool turns in the benchmark conversation (it is fitted on every request). */
  turns?: number;
  /** Requests per phase with one client at a time. */
  sequentialAmount?: number;
  /** Give up on a request after this many seconds. */
  timeoutSeconds?: number;
}

export type { PhaseFigures };

/** What {@link benchProxy} reports. */
export interface ProxyBenchResult {
  command: string;
  connections: number;
  rounds: number;
  promptTokens: number;
  /** One client at a time. */
  sequential: { direct: PhaseFigures; proxied: PhaseFigures; addedP50Ms: number; addedP99Ms: number };
  /** `connections` clients at once; requests, ok and errors summed over rounds, the rest medians. */
  direct: PhaseFigures;
  proxied: PhaseFigures;
  /** Proxied minus direct, per round, the median. */
  addedP50Ms: number;
  addedP99Ms: number;
  throughputRatio: number;
  /** The proxy's own `spillway_proxy_added_latency_seconds` histogram over the proxied phase. */
  proxyReportedMeanMs: number;
  /** Requests sent through the proxy under load, and the chat requests the emulator saw meanwhile. */
  sent: number;
  upstreamSaw: number;
  /** Requests the client got a 2xx for whose id the emulator never saw, and ids the emulator saw twice. */
  lost: number;
  duplicated: number;
}

function conversation(turns: number): Record<string, unknown> {
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent working in a TypeScript repository.' },
    { role: 'user', content: 'Find and fix the failing budget test.' },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_R${turn.toString(36).padStart(3, '0')}bench${turn}`;
    const args = JSON.stringify({ path: `src/core/file-${turn}.ts` });
    messages.push({
      role: 'assistant',
      content: `Reading file ${turn}.`,
      tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: args } }],
    });
    messages.push({
      role: 'tool',
      tool_call_id: id,
      content: fakeToolResult({ name: 'read_file', args, seed: turn, size: 300 }),
    });
  }
  return {
    model: MODEL,
    messages,
    tools: [
      {
        type: 'function',
        function: {
          name: 'read_file',
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
        },
      },
    ],
    max_tokens: 256,
    user: 'bench-[<id>]',
  };
}

/** Each figure the median over rounds. */
function medianFigures(runs: PhaseFigures[]): PhaseFigures {
  const of = (pick: (run: PhaseFigures) => number) => round(median(runs.map(pick)), 1);
  return {
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    ok: runs.reduce((sum, run) => sum + run.ok, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    requestsPerSecond: of((run) => run.requestsPerSecond),
    p50Ms: of((run) => run.p50Ms),
    p90Ms: of((run) => run.p90Ms),
    p99Ms: of((run) => run.p99Ms),
  };
}

/**
 * Throughput and added latency of the proxy against the emulator alone, measured in the same run,
 * and a check that every request reached the upstream exactly once.
 *
 * @example
 * const result = await benchProxy({ connections: 16, amount: 1_000, rounds: 3 });
 * console.log(result.addedP50Ms, result.lost, result.duplicated);
 */
export async function benchProxy({
  connections = 16,
  amount = 1_000,
  rounds = 3,
  turns = 8,
  sequentialAmount = 300,
  timeoutSeconds = 30,
}: BenchProxyOptions = {}): Promise<ProxyBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-bench-proxy-'));
  const emulator = spawnTsx([SELF], { SPILLWAY_BENCH_ROLE: 'emulator' });
  let proxy: ChildProcess | undefined;
  try {
    const upstream = await firstLine(emulator, 'listening on ');
    const args = [
      'serve',
      '--upstream',
      upstream,
      '--port',
      '0',
      '--store',
      `sqlite:${join(dir, 'proxy.db')}`,
    ];
    proxy = spawnCli(args);
    const url = await firstLine(proxy, 'listening on ');
    const request = conversation(turns);
    const body = JSON.stringify(request);
    const promptTokens = (await ask<{ tokens: number }>(emulator, `count:${body}`)).tokens;

    // Warm both paths (JIT, keep-alive sockets, the proxy's discovery of the upstream).
    await load(upstream, body, { connections, amount: connections * 10, timeout: timeoutSeconds });
    await load(url, body, { connections, amount: connections * 10, timeout: timeoutSeconds });
    // One client at a time: latency without queueing, so the difference is the proxy's own cost.
    const sequentialDirect = await sequential(upstream, body, sequentialAmount);
    const sequentialProxied = await sequential(url, body, sequentialAmount);

    // Under load: the two paths alternate, `rounds` times, so drift in the machine's load hits both.
    const before = addedLatency(await (await fetch(`${url}/metrics`)).text());
    const directRuns: PhaseFigures[] = [];
    const proxiedRuns: PhaseFigures[] = [];
    const ids: string[] = [];
    let proxiedOk = 0;
    for (let round = 0; round < rounds; round++) {
      directRuns.push(figures(await load(upstream, body, { connections, amount, timeout: timeoutSeconds })));
      const mark = (await ask<{ ids: string[] }>(emulator, 'ids')).ids.length;
      const proxied = await load(url, body, { connections, amount, timeout: timeoutSeconds });
      proxiedRuns.push(figures(proxied));
      proxiedOk += proxied['2xx'];
      ids.push(...(await ask<{ ids: string[] }>(emulator, 'ids')).ids.slice(mark));
    }
    const after = addedLatency(await (await fetch(`${url}/metrics`)).text());
    const unique = new Set(ids);
    const direct = medianFigures(directRuns);
    const proxied = medianFigures(proxiedRuns);
    const added = (pick: (figures: PhaseFigures) => number) =>
      round(median(proxiedRuns.map((run, index) => pick(run) - pick(directRuns[index] as PhaseFigures))), 2);
    return {
      command: 'npx tsx bench/proxy.ts',
      connections,
      rounds,
      promptTokens,
      sequential: {
        direct: sequentialDirect,
        proxied: sequentialProxied,
        addedP50Ms: round(sequentialProxied.p50Ms - sequentialDirect.p50Ms, 3),
        addedP99Ms: round(sequentialProxied.p99Ms - sequentialDirect.p99Ms, 3),
      },
      direct,
      proxied,
      addedP50Ms: added((run) => run.p50Ms),
      addedP99Ms: added((run) => run.p99Ms),
      throughputRatio: round(
        median(
          proxiedRuns.map(
            (run, index) => run.requestsPerSecond / (directRuns[index]?.requestsPerSecond ?? 1),
          ),
        ),
        3,
      ),
      proxyReportedMeanMs: round(
        ((after.sum - before.sum) / Math.max(1, after.count - before.count)) * 1_000,
        3,
      ),
      sent: amount * rounds,
      upstreamSaw: ids.length,
      lost: Math.max(0, proxiedOk - unique.size),
      duplicated: ids.length - unique.size,
    };
  } finally {
    if (proxy) await stop(proxy);
    await stop(emulator);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The emulator side of the benchmark, in its own process: serves, and reports its log over IPC. */

if (process.env.SPILLWAY_BENCH_ROLE === 'emulator')
  await serveBenchEmulator({ model: MODEL, contextLength: 32_768 });
else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  console.log(JSON.stringify(await benchProxy(), null, 2));

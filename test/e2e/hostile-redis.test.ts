/**
 * A Redis store that freezes (SIGSTOP: connections stay open, nothing is answered) or goes away,
 * under a proxy serving requests. Without a breaker every store command waits out its timeout, a
 * second added to every request; with it, after a few failures requests go on at once without
 * stored state (a log line and a metric say so), the store is tried again in the background, and
 * once Redis answers again the state is used and written again.
 */
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import {
  PROXY_KEY_PREFIX,
  type ProxyLogEntry,
  REDIS_COMMAND_TIMEOUT_MS,
  type RunningProxy,
  STORE_FAILURES_TO_OPEN,
  startProxy,
} from '../../src/proxy/index.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

let redis: RedisServer;
let emulator: Emulator;
beforeAll(async () => {
  redis = await startRedisServer();
  emulator = await startEmulator({ profile: 'vllm', contextLength: 8_192 });
});
afterAll(async () => {
  redis?.resume();
  await redis?.stop();
  await emulator?.close();
  writeHostileResults(fileURLToPath(import.meta.url));
});

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  redis.resume();
  await Promise.all(open.splice(0).map((item) => item.close()));
});

const RETRY_AFTER_MS = 500;

async function proxyOn(database: number): Promise<{ proxy: RunningProxy; logs: ProxyLogEntry[] }> {
  const logs: ProxyLogEntry[] = [];
  const proxy = await startProxy({
    upstream: emulator.url,
    port: 0,
    store: `${redis.url}/${database}`,
    storeBreaker: { retryAfterMs: RETRY_AFTER_MS },
    onLog: (entry) => logs.push(entry),
  });
  open.push(proxy);
  return { proxy, logs };
}

/** One chat request; its status and how long it took, in ms. */
async function chat(proxy: RunningProxy, turn: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'Qwen/Qwen2.5-7B-Instruct',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: `Task ${turn % 3}` },
      ],
      max_tokens: 64,
    }),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

async function keysIn(database: number): Promise<number> {
  const client = new Redis(`${redis.url}/${database}`);
  try {
    return (await client.keys(`${PROXY_KEY_PREFIX}*`)).length;
  } finally {
    client.disconnect();
  }
}

describe('a frozen Redis', () => {
  it('costs a few requests the command timeout, then none, and is used again once it thaws', async () => {
    const { proxy, logs } = await proxyOn(4);
    for (let turn = 0; turn < 3; turn++) expect((await chat(proxy, turn)).status).toBe(200);
    expect(await keysIn(4)).toBeGreaterThan(0);

    redis.pause();
    const frozen: { status: number; ms: number }[] = [];
    for (let turn = 0; turn < 20; turn++) frozen.push(await chat(proxy, turn));
    expect(frozen.every((result) => result.status === 200)).toBe(true);
    // Each store command waits at most the command timeout; only requests before the breaker opened
    // (its first failures arrive together, from one request's parallel reads) paid for it.
    const slow = frozen.filter((result) => result.ms >= REDIS_COMMAND_TIMEOUT_MS * 0.8).length;
    expect(slow).toBeLessThanOrEqual(2);
    expect(logs.filter((entry) => entry.event === 'store_circuit_open')).toHaveLength(1);
    expect(proxy.metrics.storeCircuitOpen.value()).toBe(1);
    expect(proxy.metrics.storeSkipped.value({ operation: 'read' })).toBeGreaterThan(0);

    redis.resume();
    let closedAfter = 0;
    for (let turn = 0; turn < 100 && proxy.metrics.storeCircuitOpen.value() === 1; turn++) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS / 5));
      await chat(proxy, turn);
      closedAfter++;
    }
    expect(proxy.metrics.storeCircuitOpen.value()).toBe(0);
    expect(logs.filter((entry) => entry.event === 'store_circuit_closed')).toHaveLength(1);
    const before = await keysIn(4);
    await chat(proxy, 100);
    expect(await keysIn(4)).toBeGreaterThanOrEqual(before);
    recordHostile('redis_outage', {
      requests_while_frozen: frozen.length,
      requests_that_waited_for_redis: slow,
      failures_to_open: STORE_FAILURES_TO_OPEN,
      requests_until_closed_after_thaw: closedAfter,
      failed_requests: frozen.filter((result) => result.status !== 200).length,
    });
  }, 60_000);

  it('stopped outright: every request is still answered, and the breaker opens', async () => {
    const stopped = await startRedisServer();
    const logs: ProxyLogEntry[] = [];
    const proxy = await startProxy({
      upstream: emulator.url,
      port: 0,
      store: stopped.url,
      onLog: (entry) => logs.push(entry),
    });
    open.push(proxy);
    expect((await chat(proxy, 0)).status).toBe(200);
    await stopped.stop();
    const results: number[] = [];
    for (let turn = 0; turn < 10; turn++) results.push((await chat(proxy, turn)).status);
    expect(results.every((status) => status === 200)).toBe(true);
    expect(proxy.metrics.storeCircuitOpen.value()).toBe(1);
    recordHostile('redis_outage', { requests_while_stopped: results.length, failed_requests: 0 });
  }, 60_000);
});

/**
 * Several proxy instances behind a load balancer, sharing one real Redis: learned limits,
 * calibration and sticky compression levels are shared, so whichever instance serves a turn, the
 * upstream gets the bytes one instance alone would have sent.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/index.js';
import { type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import {
  createRedisProxyStore,
  type ProxyLogEntry,
  type RunningProxy,
  startProxy,
} from '../../src/proxy/index.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

const TURNS = 12;
const TOOLS: ChatCompletionTool[] = ['read_file', 'search', 'run'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
}));

/** An emulator that enforces less than it advertises, so there is a window to learn. */
async function upstream(): Promise<Emulator> {
  const emulator = await startEmulator({ profile: 'litellm-vllm', scale: 0.1, contextLength: 4_000 });
  open.push(emulator);
  return emulator;
}

async function proxy(emulator: Emulator, store: string): Promise<RunningProxy> {
  const started = await startProxy({ upstream: emulator.url, port: 0, store });
  open.push(started);
  return started;
}

/** One agent session; turn n goes to `proxies[n % proxies.length]`, as a round-robin balancer would. */
async function session(proxies: RunningProxy[]): Promise<void> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Find and fix the failing test.' },
  ];
  for (let turn = 0; turn < TURNS; turn++) {
    const target = proxies[turn % proxies.length] as RunningProxy;
    const client = new OpenAI({ baseURL: `${target.url}/v1`, apiKey: 'sk-redis', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'glm5.2',
      messages,
      tools: TOOLS,
      max_tokens: 2_000,
    });
    const message = completion.choices[0]?.message;
    if (!message) throw new Error('no reply');
    messages.push(message);
    for (const call of message.tool_calls ?? []) {
      if (call.type !== 'function') continue;
      const content = fakeToolResult({
        name: call.function.name,
        args: call.function.arguments,
        seed: turn,
        size: 700,
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
}

/** The chat bodies an emulator accepted (turns and compactions' summary requests), as JSON text, in order. */
const accepted = (emulator: Emulator) =>
  emulator.requests
    .filter((record) => record.path === '/v1/chat/completions' && record.status === 200)
    .map((record) => JSON.stringify(record.body));
const turns = (emulator: Emulator) =>
  accepted(emulator).filter((body) => !body.includes(SUMMARY_REQUEST_MARKER));
/** The limits probe: a request for more reply than any window, refused before anything is generated. */
const PROBE_MAX_TOKENS = 1_000_000_000;
const chatRecords = (emulator: Emulator) =>
  emulator.requests.filter((record) => record.path === '/v1/chat/completions');
const probes = (emulator: Emulator) =>
  chatRecords(emulator).filter((record) => record.maxTokens === PROBE_MAX_TOKENS).length;
const rejected = (emulator: Emulator) =>
  chatRecords(emulator).filter((record) => record.status !== 200 && record.maxTokens !== PROBE_MAX_TOKENS)
    .length;

describe('proxies sharing a Redis store', () => {
  it('send the same bytes for every turn of a conversation as one proxy alone, whichever serves it', async () => {
    const alone = await upstream();
    await session([await proxy(alone, 'memory')]);

    const balanced = await upstream();
    const url = `${redis.url}/1`;
    await session([await proxy(balanced, url), await proxy(balanced, url)]);

    const unshared = await upstream();
    await session([await proxy(unshared, 'memory'), await proxy(unshared, 'memory')]);

    expect(turns(alone)).toHaveLength(TURNS);
    // The window (4,000, not the advertised 9,600) is found by each instance's zero-cost probe. At a
    // window this small a turn may still be rejected (an estimate off by more than the safety margin)
    // and recovered; the balanced instances meet the same rejections and recover them the same way.
    expect(probes(alone)).toBe(1);
    expect(probes(balanced)).toBe(2);
    expect(rejected(alone)).toBeLessThanOrEqual(1);
    expect(rejected(balanced)).toBe(rejected(alone));
    expect(accepted(balanced)).toEqual(accepted(alone));
    // Without the shared store, the second instance has neither the first one's calibration nor its
    // cut: the bytes drift from what one proxy sends (the provider's prefix cache is lost at each
    // switch), though each instance's own probe keeps every turn inside the window.
    expect(accepted(unshared)).not.toEqual(accepted(alone));
  });

  it('stores, expires and deletes values in Redis', async () => {
    const store = createRedisProxyStore({ url: `${redis.url}/2` });
    open.push(store);
    await store.ready?.();
    await store.set('k', 'v');
    await store.set('t', 'x', { ttlSeconds: 100 });
    expect(await store.get('k')).toBe('v');
    expect(await store.get('t')).toBe('x');
    await store.delete('k');
    expect(await store.get('k')).toBeUndefined();
    await store.setMany?.([
      { key: 'm1', value: 'one' },
      { key: 'm2', value: 'two', ttlSeconds: 100 },
    ]);
    expect(await store.getMany?.(['m2', 'missing', 'm1'])).toEqual(['two', undefined, 'one']);
    expect(store.kind).toBe('redis');
  });

  it('keeps serving without shared state when Redis is unreachable, and says so once', async () => {
    const emulator = await upstream();
    const logs: ProxyLogEntry[] = [];
    const started = await startProxy({
      upstream: emulator.url,
      port: 0,
      store: 'redis://127.0.0.1:9/0',
      onLog: (entry) => logs.push(entry),
    });
    open.push(started);
    const client = new OpenAI({ baseURL: `${started.url}/v1`, apiKey: 'sk-redis', maxRetries: 0 });
    for (let index = 0; index < 2; index++) {
      const completion = await client.chat.completions.create({
        model: 'glm5.2',
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(completion.choices[0]?.message).toBeDefined();
    }
    const warnings = logs.filter((entry) => entry.event === 'store_error');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(
      /^the redis store is not reachable \(.+\); serving without stored state/,
    );
    const metrics = await (await fetch(`${started.url}/metrics`)).text();
    expect(metrics).toMatch(/spillway_proxy_store_errors_total\{operation="read"\} [1-9]/);
  });
});

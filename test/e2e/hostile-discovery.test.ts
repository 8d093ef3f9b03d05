/**
 * Client-chosen model names against the proxy's discovery: `spillway serve` in its own process in
 * front of an emulated vLLM that counts every request it receives. Names over the documented limit
 * are a 400 and cost nothing; ever new short names cost no discovery probes once the server is known
 * (probes are counted on the upstream, never inferred); concurrent requests for one new name share
 * one discovery run; the proxy's memory stays bounded whatever the names.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { MAX_MODEL_NAME_CHARS } from '../../src/models/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { type ServeProcess, spawnServe } from '../support/spawn-serve.js';

const open: { close(): Promise<void> }[] = [];
const processes: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
  await Promise.all(processes.splice(0).map((item) => item.stop()));
});
afterAll(() => writeHostileResults(fileURLToPath(import.meta.url)));

function chat(url: string, model: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-discovery' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 }),
  });
}

/** The most requests one discovery of a server makes (its endpoints, and /api/show once). */
const DISCOVERY_PROBES = 7;

/** Requests the upstream received that were not chat requests: discovery probes. */
const probes = (emulator: Emulator) =>
  emulator.requests.filter((record) => record.path !== '/v1/chat/completions').length;

/** Runs `count` tasks, `width` at a time. */
async function inParallel(
  count: number,
  width: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

describe('client-chosen model names', () => {
  it('over the limit are answered 400 and ever new ones cost no probes, with memory bounded', async () => {
    const emulator = await startEmulator({ profile: 'vllm', contextLength: 8_192 });
    open.push(emulator);
    const serve = await spawnServe(['--upstream', emulator.url, '--store', 'memory']);
    processes.push(serve);
    for (let index = 0; index < 20; index++) expect((await chat(serve.url, 'warm-up')).status).toBe(200);
    const rssBefore = await serve.keptBytes();

    const huge = 300;
    await inParallel(huge, 4, async (index) => {
      const response = await chat(serve.url, `${index}-${'m'.repeat(1_000_000)}`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('model_name_too_long');
    });
    const distinct = 3_000;
    await inParallel(distinct, 8, async (index) => {
      const response = await chat(serve.url, `client-chosen-model-${index}`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    });
    const rssAfter = await serve.keptBytes();
    const clientRequests = 20 + huge + distinct;
    const upstreamProbes = probes(emulator);
    expect(upstreamProbes).toBeLessThanOrEqual(clientRequests);
    // One discovery of the server: its model-independent endpoints (/v1/models, /model/info, /props,
    // /api/ps, /info), and /api/show for the name it lists; nothing per client-chosen name.
    expect(upstreamProbes).toBeLessThanOrEqual(DISCOVERY_PROBES);
    // 300 MB of model names went through; keeping them was 386 MB of growth. What the process keeps,
    // measured after a compacting collection, is what its bounded caches hold.
    const growth = rssAfter - rssBefore;
    expect(growth).toBeLessThan(128 * 1024 * 1024);
    recordHostile('model_names', {
      client_requests: clientRequests,
      names_over_limit: huge,
      name_limit_chars: MAX_MODEL_NAME_CHARS,
      distinct_names: distinct,
      upstream_discovery_probes: upstreamProbes,
      rss_growth_mb: Math.round(growth / 1024 / 1024),
    });
  }, 120_000);

  it('share one discovery run among concurrent requests naming the same new model', async () => {
    const emulator = await startEmulator({ profile: 'vllm', contextLength: 8_192 });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0, store: 'memory' });
    open.push(proxy);
    const responses = await Promise.all(Array.from({ length: 50 }, () => chat(proxy.url, 'fresh-model')));
    for (const response of responses) expect(response.status).toBe(200);
    expect(probes(emulator)).toBeLessThanOrEqual(DISCOVERY_PROBES);
    recordHostile('model_names', { concurrent_same_name: 50, concurrent_probes: probes(emulator) });
  });

  it('remember a server that answers no probe, instead of asking it again for every name', async () => {
    const emulator = await startEmulator({ profile: 'openai' });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0, store: 'memory' });
    open.push(proxy);
    for (let index = 0; index < 100; index++) await (await chat(proxy.url, `gpt-4o-${index}`)).arrayBuffer();
    expect(probes(emulator)).toBeLessThanOrEqual(DISCOVERY_PROBES);
  });
});

/**
 * Concurrent clients through the proxy, counted against the emulator's request log: every request
 * answered reached the upstream exactly once. (Throughput and latency are `bench/proxy.ts`'s.)
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/index.js';

interface AutocannonResult {
  requests: { total: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
// autocannon ships no type declarations; this is the part of its API the test uses.
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: Record<string, unknown>,
) => Promise<AutocannonResult>;

let emulator: Emulator;
let proxy: RunningProxy;
beforeAll(async () => {
  emulator = await startEmulator({ profile: 'vllm', model: 'load', contextLength: 8_192 });
  proxy = await startProxy({ upstream: emulator.url, port: 0 });
});
afterAll(async () => {
  await proxy?.close();
  await emulator?.close();
});

describe('the proxy under concurrent clients', () => {
  it('loses and duplicates no request', async () => {
    const amount = 60;
    const result = await autocannon({
      url: `${proxy.url}/v1/chat/completions`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'load',
        messages: [
          { role: 'system', content: 'You are a coding agent.' },
          { role: 'user', content: 'Say which file to read first.' },
        ],
        max_tokens: 64,
        user: 'load-[<id>]',
      }),
      idReplacement: true,
      connections: 4,
      amount,
      timeout: 20,
    });
    expect(result['2xx']).toBe(amount);
    expect(result.errors + result.timeouts + result.non2xx).toBe(0);
    const ids = emulator.requests
      .filter((record) => record.path === '/v1/chat/completions')
      .map((record) => (record.body as { user: string }).user);
    expect(ids).toHaveLength(amount);
    expect(new Set(ids).size).toBe(amount);
    expect(ids.every((id) => /^load-\S+$/.test(id) && id !== 'load-[<id>]')).toBe(true);
  });
});

/**
 * The window the upstream really enforces, through `spillway serve`: a config window that contradicts
 * the upstream gives way to the window the upstream states in its first rejection (kept in the
 * store, logged once), unless the config marks it hard; a gateway in front of vLLM is probed, so
 * the session never sees a rejection at all.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { type ProxyLogEntry, type ProxyOptions, startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';
import { toolHistory } from './tool-history.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

/** The upstream enforces 21,000 tokens; the model is in no catalog, so nothing else says so. */
async function setup(proxyOptions: Partial<ProxyOptions>) {
  const emulator = await startEmulator({ profile: 'openai', port: 0, model: 'acme', contextLength: 21_000 });
  open.push(emulator);
  const logs: ProxyLogEntry[] = [];
  const proxy = await startProxy({
    upstream: emulator.url,
    port: 0,
    onLog: (entry) => logs.push(entry),
    ...proxyOptions,
  });
  open.push(proxy);
  const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-limits', maxRetries: 0 });
  return { emulator, client, logs };
}

/** The growing session: 10 to 30 turns, about 13,000 to 39,000 tokens of history. */
async function session(client: OpenAI): Promise<Array<{ window: string | null; recovery: string | null }>> {
  const seen: Array<{ window: string | null; recovery: string | null }> = [];
  for (const turns of [10, 14, 18, 22, 26, 30]) {
    const { response } = await client.chat.completions
      .create({ model: 'acme', messages: toolHistory(turns, 1_300), max_tokens: 1_000 })
      .withResponse();
    seen.push({
      window: response.headers.get('x-spillway-window'),
      recovery: response.headers.get('x-spillway-recovery'),
    });
  }
  return seen;
}

const rejections = (emulator: Emulator) =>
  emulator.requests.filter((record) => record.path === '/v1/chat/completions' && record.status === 400);

describe('the window the upstream enforces, through the proxy', () => {
  it('converges after one rejection when the config window contradicts the upstream, and says so once', async () => {
    const config = parseProxyConfig({ models: { acme: { context_length: 40_000 } } });
    const { emulator, client, logs } = await setup({ config });
    const seen = await session(client);
    // The first request past 21,000 tokens is rejected and recovered; the stated window is kept for
    // the model and wins over the config from then on: no request is rejected again.
    expect(rejections(emulator)).toHaveLength(1);
    const recovered = seen.findIndex((turn) => turn.recovery !== 'none');
    expect(recovered).toBeGreaterThan(0);
    expect(seen.slice(0, recovered).every((turn) => turn.window === '40000')).toBe(true);
    expect(
      seen.slice(recovered + 1).every((turn) => turn.window === '21000' && turn.recovery === 'none'),
    ).toBe(true);
    const told = logs.filter((entry) => entry.event === 'limits' && entry.notice === 'limit_overridden');
    expect(told).toEqual([
      expect.objectContaining({
        model: 'acme',
        figure: 'context_length',
        value: 21_000,
        source: 'stated',
        overridden: [{ value: 40_000, source: 'config' }],
      }),
    ]);
  });

  it('keeps a window the config marks hard, whatever the upstream states', async () => {
    const config = parseProxyConfig({ models: { acme: { context_length: { value: 40_000, hard: true } } } });
    const { emulator, client } = await setup({ config });
    const seen = await session(client);
    // Each request is fitted to the hard 40,000; the retry of a rejected one fits what the upstream
    // just stated, and the next request is fitted to 40,000 again, as the user asked.
    const fitted = seen.filter((turn) => turn.recovery === 'none');
    expect(fitted.length).toBeGreaterThan(0);
    expect(fitted.every((turn) => turn.window === '40000')).toBe(true);
    expect(rejections(emulator).length).toBeGreaterThan(1);
  });

  it('probes LiteLLM in front of vLLM before the first request: the session sees no rejection', async () => {
    const emulator = await startEmulator({ profile: 'litellm-vllm', port: 0, scale: 0.1 });
    open.push(emulator);
    const logs: ProxyLogEntry[] = [];
    const config = parseProxyConfig({ models: { 'glm5.2': { context_length: 40_000 } } });
    const proxy = await startProxy({
      upstream: emulator.url,
      port: 0,
      config,
      onLog: (entry) => logs.push(entry),
    });
    open.push(proxy);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-limits', maxRetries: 0 });
    for (const turns of [4, 8, 12]) {
      const { response } = await client.chat.completions
        .create({ model: 'glm5.2', messages: toolHistory(turns, 1_300), max_tokens: 1_000 })
        .withResponse();
      expect(response.headers.get('x-spillway-window')).toBe('21000');
      expect(response.headers.get('x-spillway-recovery')).toBe('none');
    }
    const chats = emulator.requests.filter((record) => record.path === '/v1/chat/completions');
    expect(chats.map((record) => record.status)).toEqual([400, 200, 200, 200]);
    expect(chats[0]).toMatchObject({ maxTokens: 1_000_000_000, stream: true });
    expect(logs.filter((entry) => entry.event === 'limits')).toEqual([
      expect.objectContaining({
        notice: 'limit_overridden',
        value: 21_000,
        source: 'probed',
        overridden: [
          { value: 9_600, source: 'claimed:/model/info' },
          { value: 40_000, source: 'config' },
        ],
      }),
    ]);
  });
});

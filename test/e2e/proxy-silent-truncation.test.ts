/**
 * A prompt Ollama silently cut to `num_ctx`, through `spillway serve`: the client already has the
 * reply, so the proxy logs the truncation and keeps the window the report showed for the model; the
 * next request of the conversation is fitted to it and reaches the model whole.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { type ProxyLogEntry, startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';
import { toolHistory } from './tool-history.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

describe('a silently truncated prompt, through the proxy', () => {
  it('logs it, learns the window from the reported count, and fits the next request to it', async () => {
    // num_ctx 4,096 for every model; /api/show knows only qwen2.5:7b, so for llama3.1:8b only the
    // config's 32,768 is known, and the usage report is the first to tell.
    const ollama = await startEmulator({ profile: 'ollama', port: 0 });
    open.push(ollama);
    const logs: ProxyLogEntry[] = [];
    const proxy = await startProxy({
      upstream: ollama.url,
      port: 0,
      onLog: (entry) => logs.push(entry),
      config: parseProxyConfig({ models: { 'llama3.1:8b': { context_length: 32_768 } } }),
    });
    open.push(proxy);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-ollama', maxRetries: 0 });
    const windows: Array<string | null> = [];
    for (const turns of [12, 13, 14]) {
      const { response } = await client.chat.completions
        .create({ model: 'llama3.1:8b', messages: toolHistory(turns, 600), max_tokens: 500 })
        .withResponse();
      windows.push(response.headers.get('x-spillway-window'));
    }
    const chats = ollama.requests.filter((record) => record.chatNumber !== undefined);
    // The first cut prompt is reported within what the estimate allows; the second, anchored on the
    // first's report, shows the cut. The third is fitted to the window that report showed.
    expect(chats.map((record) => record.note?.truncated === true)).toEqual([true, true, false]);
    const told = logs.filter((entry) => entry.event === 'silent_truncation');
    expect(told).toEqual([expect.objectContaining({ model: 'llama3.1:8b', window: expect.any(Number) })]);
    const learned = told[0]?.window as number;
    expect(learned).toBeLessThanOrEqual(4_096);
    expect(windows).toEqual(['32768', '32768', String(learned)]);
  });
});

/**
 * The counts the proxy takes besides its estimate: a request only the estimate's margin calls too
 * large is counted on the upstream's own counting endpoint (vLLM's `/tokenize`) and goes out whole,
 * anchored on that count.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { toolHistory } from './tool-history.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

/** About 11,000 real tokens in a 16,384-token window: the cold estimate is over the budget, the count is not. */
async function send(model: string) {
  const emulator = await startEmulator({ profile: 'vllm', port: 0, model, contextLength: 16_384 });
  open.push(emulator);
  const proxy = await startProxy({ upstream: emulator.url, port: 0 });
  open.push(proxy);
  const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-count', maxRetries: 0 });
  const messages = toolHistory(10, 1_050);
  const { response } = await client.chat.completions
    .create({ model, messages, max_tokens: 1_000 })
    .withResponse();
  return { emulator, response, messages };
}

describe('counting through the proxy', () => {
  it("settles a request the estimate alone doubts on vLLM's /tokenize, and sends it whole", async () => {
    const { emulator, response, messages } = await send('acme');
    const counted = emulator.requests.filter((record) => record.path === '/tokenize');
    expect(counted.length).toBeGreaterThan(0);
    expect(response.headers.get('x-spillway-count')).toBe('anchored');
    expect(response.headers.get('x-spillway-verdict')).toBe('fits');
    expect(response.headers.get('x-spillway-cut')).toBe('none');
    const chat = emulator.requests.find((record) => record.path === '/v1/chat/completions');
    expect((chat?.body as { messages?: unknown[] } | undefined)?.messages).toHaveLength(messages.length);
  });

  it("counts an OpenAI model's request with its own tokenizer first", async () => {
    const { emulator, response } = await send('gpt-4o');
    expect(response.headers.get('x-spillway-count')).toBe('exact');
    expect(response.headers.get('x-spillway-cut')).toBe('none');
    expect(emulator.requests.some((record) => record.path === '/tokenize')).toBe(false);
  });
});

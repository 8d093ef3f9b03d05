/**
 * The proxy's `cut_runway` setting reaches every conversation's driver: a growing conversation through
 * a proxy told a short runway is cut more often, and keeps more of its history per request, than the
 * same conversation through a proxy told a long one. The emulated vLLM counts with o200k and its chat
 * template and enforces the window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';

const MODEL = 'gpt-4o';
const WINDOW = 8_192;
const closing: Array<Emulator | RunningProxy> = [];
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close();
});

/** Sends a tool loop's history, one read longer each time; the cut header and the server's count of each. */
async function converse(cutRunway: number): Promise<{ cuts: number; counted: number[] }> {
  const server = await startEmulator({
    profile: 'vllm',
    model: MODEL,
    contextLength: WINDOW,
    script: { selectBy: 'request', after: 'repeat-last', replies: [{ text: 'Read.' }] },
  });
  closing.push(server);
  const proxy = await startProxy({
    upstream: server.url,
    port: 0,
    store: 'memory',
    config: parseProxyConfig({ context_length: WINDOW, cut_runway: cutRunway }),
  });
  closing.push(proxy);
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Read every file, then summarize the project.' },
  ];
  let cuts = 0;
  for (let turn = 0; turn < 40; turn++) {
    const id = `call_${turn}`;
    const args = { path: `src/file${turn}.ts` };
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'read', arguments: JSON.stringify(args) } }],
      },
      {
        role: 'tool',
        tool_call_id: id,
        content: fakeToolResult({ name: 'read', args, seed: turn, size: 900 }),
      },
    );
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-runway-test' },
      body: JSON.stringify({ model: MODEL, messages, max_tokens: 512 }),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const cut = response.headers.get('x-spillway-cut') ?? 'none';
    if (cut !== 'none' && cut !== 'sticky') cuts++;
  }
  const counted = server.requests
    .filter((record) => record.path === '/v1/chat/completions')
    .map((record) => record.promptTokens ?? 0);
  return { cuts, counted };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

describe('the proxy’s cut_runway setting', () => {
  it('cuts more often and sends more history with a short runway than with a long one', async () => {
    const short = await converse(0);
    const long = await converse(13);
    expect(long.cuts).toBeGreaterThan(0);
    expect(short.cuts).toBeGreaterThan(long.cuts);
    // Once cuts begin (the second half), a short runway fills more of the window.
    expect(mean(short.counted.slice(20))).toBeGreaterThan(mean(long.counted.slice(20)));
    for (const tokens of [...short.counted, ...long.counted])
      expect(tokens + 512).toBeLessThanOrEqual(WINDOW);
  }, 60_000);
});

/**
 * A rejection without figures, through the proxy: the Responses API of a server that enforces an
 * 8,192-token window while the proxy believes gpt-4o's 128,000 (the catalog's figure). The upstream's
 * overflow says only "Your input exceeds the context window of this model": the window is what is
 * wrong, not the count, and the request ends 200 after that one rejection.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type ProxyLogEntry, startProxy } from '../../src/proxy/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

function input(turns: number): OpenAI.Responses.ResponseInputItem[] {
  const items: OpenAI.Responses.ResponseInputItem[] = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read every file and sum up.' }] },
  ];
  for (let turn = 0; turn < turns; turn++) {
    items.push({
      type: 'function_call',
      call_id: `call_${turn}`,
      name: 'shell',
      arguments: `{"command":["cat","f${turn}"]}`,
    });
    items.push({
      type: 'function_call_output',
      call_id: `call_${turn}`,
      output: fakeToolResult({ name: 'read_file', args: { path: `f${turn}` }, seed: turn, size: 4_000 }),
    });
  }
  return items;
}

describe('a rejection without figures of a request the proxy believed fits', () => {
  it('learns a smaller window instead of blaming the count, and ends 200 after one rejection', async () => {
    const emulator = await startEmulator({ profile: 'openai', contextLength: 8_192 });
    open.push(emulator);
    const logs: ProxyLogEntry[] = [];
    const proxy = await startProxy({ upstream: emulator.url, port: 0, onLog: (entry) => logs.push(entry) });
    open.push(proxy);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-r', maxRetries: 0 });
    const { data, response } = await client.responses
      .create({ model: 'gpt-4o', instructions: 'You are a coding agent.', input: input(10), store: false })
      .withResponse();
    expect(data.status).toBe('completed');
    // One rejection; then the summary of the older turns and the request itself, all answered.
    const sent = emulator.requests.filter((record) => record.path === '/v1/responses');
    expect(sent.map((record) => record.status)).toEqual([400, ...sent.slice(1).map(() => 200)]);
    expect(sent.at(-1)?.promptTokens).toBeLessThanOrEqual(8_192);
    const recovery = logs.find((entry) => entry.event === 'recovery');
    expect(JSON.stringify(recovery)).toMatch(/rejected without figures .* learned window 8192 for gpt-4o/);
    expect(Number(response.headers.get('x-spillway-window'))).toBeLessThanOrEqual(8_192);
    // Nothing blamed the counter: no calibration was raised from a count no one stated.
    expect(JSON.stringify(logs)).not.toMatch(/calibration raised/);

    // The conversation goes on: its later requests are fitted to the window it learned, not sent at
    // the catalog's 128,000 to be rejected again.
    const before = emulator.requests.length;
    for (const turns of [11, 12, 13]) {
      const next = await client.responses
        .create({
          model: 'gpt-4o',
          instructions: 'You are a coding agent.',
          input: input(turns),
          store: false,
        })
        .withResponse();
      expect(next.data.status).toBe('completed');
      expect(Number(next.response.headers.get('x-spillway-window'))).toBeLessThanOrEqual(8_192);
    }
    const later = emulator.requests.slice(before).filter((record) => record.path === '/v1/responses');
    expect(later.map((record) => record.status)).toEqual(later.map(() => 200));
  });

  it('keeps the learned window to its conversation: another conversation starts from the catalog', async () => {
    const emulator = await startEmulator({ profile: 'openai', contextLength: 8_192 });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0 });
    open.push(proxy);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-r', maxRetries: 0 });
    await client.responses.create({
      model: 'gpt-4o',
      instructions: 'You are a coding agent.',
      input: input(10),
      store: false,
    });
    const other = await client.responses
      .create({ model: 'gpt-4o', instructions: 'You are another agent.', input: input(1), store: false })
      .withResponse();
    expect(other.data.status).toBe('completed');
    expect(Number(other.response.headers.get('x-spillway-window'))).toBe(128_000);
  });
});

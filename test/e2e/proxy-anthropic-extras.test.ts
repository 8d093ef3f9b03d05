/**
 * What Claude Code needs from the proxy, with the Anthropic SDK as the client: `/v1/messages` fitted
 * without `--upstream-format anthropic`, `count_tokens` answered for the fitted request, a thinking
 * budget kept below a lowered `max_tokens`, and `anthropic-beta` passed on.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { startProxy } from '../../src/proxy/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

/** A Claude Code-shaped conversation: the task, then `turns` Read calls with large results. */
function claudeMessages(turns: number): Anthropic.MessageParam[] {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read the files and sum them up.' }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${turn}`, name: 'Read', input: { file_path: `/w/f${turn}` } }],
    });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `toolu_${turn}`,
          content: fakeToolResult({ name: 'read_file', args: { path: `f${turn}` }, seed: turn, size: 1_500 }),
        },
      ],
    });
  }
  return messages;
}

const MODEL = 'claude-sonnet-4-5';

async function setup(contextLength: number) {
  const emulator = await startEmulator({ profile: 'anthropic', contextLength });
  open.push(emulator);
  // No upstreamFormat: the proxy fits /v1/messages because the client speaks Anthropic on it.
  const proxy = await startProxy({ upstream: emulator.url, port: 0 });
  open.push(proxy);
  return {
    emulator,
    proxy,
    client: new Anthropic({ baseURL: proxy.url, apiKey: 'sk-ant-x', maxRetries: 0 }),
  };
}

describe('Anthropic Messages through the proxy', () => {
  it('fits /v1/messages without --upstream-format anthropic', async () => {
    const { emulator, client } = await setup(8_000);
    const { data, response } = await client.messages
      .create({ model: MODEL, max_tokens: 1_000, messages: claudeMessages(6) })
      .withResponse();
    expect(data.type).toBe('message');
    expect(response.headers.get('x-spillway-cut')).not.toBe('none');
    const sent = emulator.requests.filter((record) => record.path === '/v1/messages');
    expect(sent.every((record) => record.status === 200 || record.overflow !== undefined)).toBe(true);
    expect(sent.at(-1)?.status).toBe(200);
  });

  it('answers count_tokens for the fitted request, which fits the window it learned', async () => {
    const { emulator, client } = await setup(8_000);
    const messages = claudeMessages(6);
    // The catalog says 200,000 for this model; the first rejection teaches the proxy the real window.
    await client.messages.create({ model: MODEL, max_tokens: 1_000, messages });
    const direct = new Anthropic({ baseURL: emulator.url, apiKey: 'sk-ant-x', maxRetries: 0 });
    const unfitted = await direct.messages.countTokens({ model: MODEL, messages });
    const { data, response } = await client.messages.countTokens({ model: MODEL, messages }).withResponse();
    expect(unfitted.input_tokens).toBeGreaterThan(8_000);
    expect(data.input_tokens).toBeLessThan(8_000);
    expect(response.headers.get('x-spillway-count')).toBe('upstream');
  });

  it('lowers a thinking budget with a lowered max_tokens, within the API rules', async () => {
    const { emulator, client } = await setup(12_000);
    await client.messages.create({
      model: MODEL,
      max_tokens: 10_000,
      thinking: { type: 'enabled', budget_tokens: 9_999 },
      messages: claudeMessages(3),
    });
    const sent = emulator.requests.filter((record) => record.path === '/v1/messages');
    // The first request is the client's (the proxy believed the catalog's 200,000); the upstream
    // rejected prompt + max_tokens, and the retry lowered max_tokens and the budget with it.
    expect(sent.map((record) => record.overflow ?? record.status)).toEqual(['budget', 200]);
    const body = sent.at(-1)?.body as {
      max_tokens: number;
      thinking: { type: string; budget_tokens: number };
    };
    expect(body.max_tokens).toBeLessThan(10_000);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: body.max_tokens - 1 });
  });

  it('passes anthropic-beta and anthropic-version on, to messages and count_tokens alike', async () => {
    const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
    const upstream = createServer((request, response) => {
      seen.push({ url: request.url ?? '', headers: request.headers });
      request.resume();
      request.on('end', () => {
        const body = request.url?.endsWith('count_tokens')
          ? { input_tokens: 12 }
          : {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: MODEL,
              content: [{ type: 'text', text: 'ok' }],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: 12, output_tokens: 1 },
            };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => upstream.close(() => resolve())) });
    const address = upstream.address();
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
      port: 0,
    });
    open.push(proxy);
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'sk-ant-x', maxRetries: 0 });
    const headers = { 'anthropic-beta': 'interleaved-thinking-2025-05-14' };
    await client.messages.create({ model: MODEL, max_tokens: 100, messages: claudeMessages(0) }, { headers });
    await client.messages.countTokens({ model: MODEL, messages: claudeMessages(0) }, { headers });
    const paths = seen.map((entry) => entry.url);
    expect(paths).toEqual(expect.arrayContaining(['/v1/messages', '/v1/messages/count_tokens']));
    for (const entry of seen.filter((item) => item.url.startsWith('/v1/messages'))) {
      expect(entry.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
      expect(entry.headers['anthropic-version']).toBeDefined();
    }
  });
});

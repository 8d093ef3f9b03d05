/**
 * The Responses API through the proxy, with the official SDK as the client: a conversation that
 * outgrows the upstream's window is fitted (the upstream never rejects it, streamed or not), the
 * input-token count is answered for the fitted request, a request that continues a stored response
 * goes through unchanged and says so, and APIs the proxy does not fit say so too.
 */
import { createServer } from 'node:http';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type ProxyLogEntry, type RunningProxy, startProxy } from '../../src/proxy/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

async function setup(
  contextLength: number,
  profile: 'vllm' | 'openai' = 'vllm',
): Promise<{ emulator: Emulator; proxy: RunningProxy; logs: ProxyLogEntry[]; client: OpenAI }> {
  const emulator = await startEmulator({ profile, contextLength });
  open.push(emulator);
  const logs: ProxyLogEntry[] = [];
  const proxy = await startProxy({ upstream: emulator.url, port: 0, onLog: (entry) => logs.push(entry) });
  open.push(proxy);
  return {
    emulator,
    proxy,
    logs,
    client: new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-r', maxRetries: 0 }),
  };
}

/** A Codex-shaped request: instructions, the task, and `turns` shell calls with large outputs. */
function codexInput(turns: number): OpenAI.Responses.ResponseInputItem[] {
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

const tools: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'shell',
    strict: false,
    parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } },
  },
];

describe('POST /v1/responses through the proxy', () => {
  it('fits a conversation over the window, so the upstream never rejects it', async () => {
    const { emulator, client } = await setup(6_000);
    const direct = await fetch(`${emulator.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        instructions: 'You are a coding agent.',
        input: codexInput(8),
        tools,
      }),
    });
    expect(direct.status).toBe(400);
    const { data, response } = await client.responses
      .create({
        model: 'm',
        instructions: 'You are a coding agent.',
        input: codexInput(8),
        tools,
        store: false,
      })
      .withResponse();
    expect(data.status).toBe('completed');
    expect(Number(response.headers.get('x-spillway-window'))).toBe(6_000);
    expect(response.headers.get('x-spillway-cut')).not.toBe('none');
    const sent = emulator.requests.filter((record) => record.path === '/v1/responses').at(-1);
    expect(sent?.status).toBe(200);
    expect(sent?.promptTokens).toBeLessThanOrEqual(6_000);
    const body = sent?.body as { instructions: string; input: { type?: string; call_id?: string }[] };
    expect(body.instructions).toBe('You are a coding agent.');
    const calls = body.input.filter((item) => item.type === 'function_call').map((item) => item.call_id);
    const outputs = body.input
      .filter((item) => item.type === 'function_call_output')
      .map((item) => item.call_id);
    expect(outputs).toEqual(calls);
  });

  it('relays the event stream of a fitted request', async () => {
    const { client } = await setup(6_000);
    const stream = await client.responses.create({ model: 'm', input: codexInput(8), tools, stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
  });

  it('answers /v1/responses/input_tokens for the fitted request, counted by the upstream', async () => {
    // OpenAI's counting endpoint (vLLM serves the Responses API but not this one).
    const { emulator, proxy } = await setup(6_000, 'openai');
    const body = JSON.stringify({ model: 'm', input: codexInput(8), tools });
    const post = (url: string) =>
      fetch(`${url}/v1/responses/input_tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const unfitted = (await (await post(emulator.url)).json()) as { input_tokens: number };
    const answer = await post(proxy.url);
    const fitted = (await answer.json()) as { object: string; input_tokens: number };
    expect(unfitted.input_tokens).toBeGreaterThan(6_000);
    expect(fitted.object).toBe('response.input_tokens');
    expect(fitted.input_tokens).toBeLessThanOrEqual(6_000);
    expect(answer.headers.get('x-spillway-count')).toBe('upstream');
  });

  it('sends a request that continues a stored response unchanged, and says so', async () => {
    const { emulator, client, logs, proxy } = await setup(32_000);
    const first = await client.responses.create({ model: 'm', input: 'Start.' });
    const { data, response } = await client.responses
      .create({ model: 'm', previous_response_id: first.id, input: 'Go on.' })
      .withResponse();
    expect(data.previous_response_id).toBe(first.id);
    expect(response.headers.get('x-spillway-fit')).toBe('server-state; previous_response_id');
    expect(emulator.requests.at(-1)?.body).toEqual({
      model: 'm',
      previous_response_id: first.id,
      input: 'Go on.',
    });
    expect(
      logs.some((entry) => entry.event === 'passthrough' && entry.reason === 'previous_response_id'),
    ).toBe(true);
    expect(proxy.metrics.passthroughs.value({ api: 'responses', reason: 'previous_response_id' })).toBe(1);
  });
});

describe('APIs the proxy does not fit', () => {
  it('passes Vertex AI streamGenerateContent through with a header, a log line and a counter', async () => {
    const seen: string[] = [];
    const upstream = createServer((request, response) => {
      seen.push(request.url ?? '');
      request.resume();
      request.on('end', () =>
        response.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"candidates":[]}\n\n'),
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => upstream.close(() => resolve())) });
    const address = upstream.address();
    const logs: ProxyLogEntry[] = [];
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
      port: 0,
      onLog: (entry) => logs.push(entry),
    });
    open.push(proxy);
    const path =
      '/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse';
    const response = await fetch(`${proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(await response.text()).toBe('data: {"candidates":[]}\n\n');
    expect(response.headers.get('x-spillway-fit')).toBe('passthrough; api=gemini');
    expect(seen).toEqual([path]);
    expect(logs.find((entry) => entry.event === 'passthrough')).toMatchObject({ api: 'gemini' });
    expect(logs.find((entry) => entry.event === 'apis')?.passed_through).toContain(
      'Vertex AI generateContent / streamGenerateContent (projects/…/models/…)',
    );
    expect(proxy.metrics.passthroughs.value({ api: 'gemini', reason: 'unfitted_api' })).toBe(1);
  });
});

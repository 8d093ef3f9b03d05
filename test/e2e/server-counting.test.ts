/**
 * Counting endpoints over loopback: each emulated server's endpoint counts a request as the server's
 * own `usage` reports it when the same request is sent as a chat; the counter bounds time, caches by
 * digest, remembers a server without the endpoint, and turns every failure into a value.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatRequest, fromOpenAIChat } from '../../src/core/index.js';
import { type Emulator, type EmulatorProfileName, startEmulator } from '../../src/emulator/index.js';
import { type CountEndpointKind, createServerCounter, detectCountEndpoint } from '../../src/models/index.js';
import { createAnthropicClient, createOpenAICompatibleClient } from '../../src/providers/index.js';

const running: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function emulate(profile: EmulatorProfileName): Promise<Emulator> {
  const emulator = await startEmulator({ profile, contextLength: 100_000 });
  running.push(emulator);
  return emulator;
}

/** A loopback server answering every request with `answer`, recording what it got. */
async function serve(answer: (path: string, body: unknown) => { status: number; body: unknown } | undefined) {
  const received: Array<{ path: string; body: unknown; headers: Record<string, unknown> }> = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      const body = text === '' ? undefined : (JSON.parse(text) as unknown);
      const path = request.url ?? '/';
      received.push({ path, body, headers: request.headers });
      const reply = answer(path, body);
      if (!reply) return; // never answers: the client's deadline must end it
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const request: ChatRequest = fromOpenAIChat({
  model: 'Qwen/Qwen2.5-7B-Instruct',
  messages: [
    { role: 'system', content: 'You are a coding agent. Read files before you change them.' },
    { role: 'user', content: 'Why does the budget test fail?' },
    {
      role: 'assistant',
      content: 'Let me read the test first.',
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'read_file', arguments: '{"path":"src/budget.test.ts"}' },
        },
        {
          id: 'call_2',
          type: 'function',
          function: { name: 'search', arguments: '{"query":"reserve","path":"src"}' },
        },
      ],
    },
    {
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'it("keeps a reserve", () => expect(budget(8192)).toBe(7168));',
    },
    {
      role: 'tool',
      tool_call_id: 'call_2',
      content: 'src/budget.ts:12: const reserve = 1_000;\n日本語のコメント',
    },
    { role: 'assistant', content: 'The reserve is 1,000, the test expects 1,024.' },
    { role: 'user', content: 'Fix it.' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'read_file',
        description: 'Read a file of the workspace.',
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    },
    {
      type: 'function',
      function: {
        name: 'search',
        description: 'Search the workspace.',
        parameters: { type: 'object', properties: { query: { type: 'string' }, path: { type: 'string' } } },
      },
    },
  ],
  max_tokens: 64,
});

describe('counting endpoints of the emulated servers', () => {
  it.each([
    ['vllm', 'vllm'],
    ['llamacpp', 'llamacpp'],
    ['openai', 'openai'],
    ['anthropic', 'anthropic'],
  ] as const)('%s counts a request as its usage reports it', async (profile, kind: CountEndpointKind) => {
    const emulator = await emulate(profile);
    const counter = createServerCounter({ baseUrl: `${emulator.url}/v1`, kind, model: emulator.url });
    const measured = await counter.measure(request);
    const client =
      profile === 'anthropic'
        ? createAnthropicClient({ baseUrl: emulator.url, apiKey: 'k' })
        : createOpenAICompatibleClient({ baseUrl: `${emulator.url}/v1` });
    const sent = await client.send(request);
    expect(measured).toMatchObject({ ok: true, exact: true, kind, cached: false });
    expect(measured.ok && measured.tokens).toBe(sent.usage?.promptTokens);
  });

  it('counts a request once: the same request again comes from the cache, without a server call', async () => {
    const emulator = await emulate('vllm');
    const counter = createServerCounter({ baseUrl: emulator.url, kind: 'vllm' });
    const first = await counter.count(request);
    const calls = emulator.requests.length;
    const again = await counter.measure({ ...request, messages: [...request.messages] });
    expect(again).toMatchObject({ ok: true, cached: true, tokens: first });
    expect(emulator.requests.length).toBe(calls);
    const longer = await counter.count({
      ...request,
      messages: [...request.messages, { role: 'user', content: 'Now.' }],
    });
    expect(longer).toBeGreaterThan(first as number);
    expect(emulator.requests.length).toBe(calls + 1);
  });

  it('asks a server that has no such endpoint once, then knows', async () => {
    const emulator = await emulate('ollama');
    const counter = createServerCounter({ baseUrl: emulator.url, kind: 'vllm' });
    expect(await counter.measure(request)).toMatchObject({ ok: false, reason: 'unsupported', status: 404 });
    expect(await counter.count(request)).toBeUndefined();
    expect(emulator.requests.filter((record) => record.path === '/tokenize')).toHaveLength(1);
  });
});

describe('failures are values', () => {
  it('ends a count the server never answers at the deadline', async () => {
    const server = await serve(() => undefined);
    const counter = createServerCounter({ baseUrl: server.url, kind: 'vllm', timeoutMs: 200 });
    expect(await counter.measure(request)).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('reports a refused connection, an error status and an answer without a count', async () => {
    const closed = await serve(() => ({ status: 200, body: {} }));
    await running.pop()?.close();
    expect(await createServerCounter({ baseUrl: closed.url, kind: 'tgi' }).measure(request)).toMatchObject({
      ok: false,
      reason: 'unreachable',
    });
    const failing = await serve(() => ({ status: 503, body: { error: 'Loading model' } }));
    expect(await createServerCounter({ baseUrl: failing.url, kind: 'vllm' }).measure(request)).toMatchObject({
      ok: false,
      reason: 'http_error',
      status: 503,
    });
    const odd = await serve(() => ({ status: 200, body: 'not json' }));
    expect(await createServerCounter({ baseUrl: odd.url, kind: 'anthropic' }).measure(request)).toMatchObject(
      {
        ok: false,
        reason: 'bad_answer',
      },
    );
  });

  it('stops at the caller’s abort', async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const counting = createServerCounter({ baseUrl: server.url, kind: 'vllm' }).measure(request, {
      signal: controller.signal,
    });
    controller.abort();
    expect(await counting).toMatchObject({ ok: false, reason: 'aborted' });
  });
});

describe('request shapes of the servers without an emulator', () => {
  it('asks TGI /chat_tokenize with a Chat Completions body and counts its tokens', async () => {
    const server = await serve((path) =>
      path === '/chat_tokenize'
        ? {
            status: 200,
            body: {
              tokenize_response: [
                { id: 1, text: 'a', start: 0, stop: 1 },
                { id: 2, text: 'b', start: 1, stop: 2 },
              ],
              templated_text: 'ab',
            },
          }
        : { status: 404, body: {} },
    );
    expect(await createServerCounter({ baseUrl: `${server.url}/v1`, kind: 'tgi' }).count(request)).toBe(2);
    expect(server.received[0]?.body).toMatchObject({ messages: expect.any(Array), tools: expect.any(Array) });
  });

  it('asks SGLang /tokenize with the text and adds the template’s cost, marked not exact', async () => {
    const server = await serve(() => ({
      status: 200,
      body: { tokens: [1, 2, 3], count: 3, max_model_len: 32_768 },
    }));
    const measured = await createServerCounter({ baseUrl: server.url, kind: 'sglang' }).measure(request);
    expect(measured).toMatchObject({ ok: true, exact: false });
    expect(measured.ok && measured.tokens).toBeGreaterThan(3);
    expect(server.received[0]?.body).toMatchObject({
      prompt: expect.stringContaining('Fix it.'),
      add_special_tokens: false,
    });
  });

  it('asks Gemini :countTokens with a generateContentRequest and reads totalTokens', async () => {
    const server = await serve(() => ({ status: 200, body: { totalTokens: 321 } }));
    const counter = createServerCounter({
      baseUrl: `${server.url}/v1beta/openai/`,
      kind: 'gemini',
      model: 'gemini-2.5-flash',
      headers: { 'x-goog-api-key': 'k' },
    });
    expect(await counter.count(request)).toBe(321);
    const [call] = server.received;
    expect(call?.path).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(call?.headers['x-goog-api-key']).toBe('k');
    expect(call?.body).toMatchObject({
      generateContentRequest: {
        model: 'models/gemini-2.5-flash',
        systemInstruction: { parts: [{ text: expect.stringContaining('coding agent') }] },
        contents: expect.arrayContaining([
          {
            role: 'model',
            parts: [
              { text: 'Let me read the test first.' },
              { functionCall: { name: 'read_file', args: { path: 'src/budget.test.ts' } } },
              { functionCall: { name: 'search', args: { query: 'reserve', path: 'src' } } },
            ],
          },
        ]),
      },
    });
  });

  it('sends Anthropic its API version unless the caller set one', async () => {
    const server = await serve(() => ({ status: 200, body: { input_tokens: 12 } }));
    await createServerCounter({
      baseUrl: server.url,
      kind: 'anthropic',
      headers: { 'x-api-key': 'k' },
    }).count(request);
    expect(server.received[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(server.received[0]?.path).toBe('/v1/messages/count_tokens');
  });
});

describe('detectCountEndpoint', () => {
  it('knows the hosted APIs by host, without a request', async () => {
    const fetchNever = (() => Promise.reject(new Error('no request expected'))) as typeof fetch;
    expect(await detectCountEndpoint({ baseUrl: 'https://api.anthropic.com/v1', fetch: fetchNever })).toBe(
      'anthropic',
    );
    expect(await detectCountEndpoint({ baseUrl: 'https://api.openai.com/v1', fetch: fetchNever })).toBe(
      'openai',
    );
    expect(
      await detectCountEndpoint({
        baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/',
        fetch: fetchNever,
      }),
    ).toBe('gemini');
  });

  it.each([
    ['vllm', 'vllm'],
    ['llamacpp', 'llamacpp'],
    ['ollama', undefined],
  ] as const)('finds the endpoint of a %s server from its discovery probes', async (profile, kind) => {
    const emulator = await emulate(profile);
    expect(
      await detectCountEndpoint({ baseUrl: `${emulator.url}/v1`, model: 'qwen2.5:7b', cache: false }),
    ).toBe(kind);
  });

  it('tells TGI and SGLang apart from vLLM by their info endpoints', async () => {
    const tgi = await serve((path) =>
      path === '/info'
        ? { status: 200, body: { model_id: 'Qwen/Qwen2.5-7B-Instruct', max_total_tokens: 32_768 } }
        : { status: 404, body: {} },
    );
    expect(await detectCountEndpoint({ baseUrl: tgi.url, cache: false })).toBe('tgi');
    const sglang = await serve((path) =>
      path === '/get_model_info'
        ? { status: 200, body: { model_path: 'Qwen/Qwen2.5-7B-Instruct' } }
        : { status: 404, body: {} },
    );
    expect(await detectCountEndpoint({ baseUrl: sglang.url, cache: false })).toBe('sglang');
  });
});

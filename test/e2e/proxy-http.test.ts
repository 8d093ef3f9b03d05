/**
 * The proxy as an HTTP server: other paths forwarded unchanged, unknown fields and unchanged
 * messages passed through byte for byte, credentials forwarded and never logged or echoed, the
 * limits on bad input (413, 400, 502), client disconnects cancelling the upstream request, health
 * and metrics, and an Anthropic upstream.
 */
import { createServer, type IncomingMessage } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/index.js';
import { fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type ProxyLogEntry, type ProxyOptions, startProxy } from '../../src/proxy/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

async function proxyFor(upstream: string, options: Partial<ProxyOptions> = {}) {
  const logs: ProxyLogEntry[] = [];
  const proxy = await startProxy({ upstream, port: 0, onLog: (entry) => logs.push(entry), ...options });
  open.push(proxy);
  return { proxy, logs };
}

/** An upstream that records each request and answers with `reply` (or never, when it returns undefined). */
async function startRecorder(
  reply: (request: IncomingMessage, body: string) => { status: number; body: unknown } | undefined,
) {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const closed: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      response.on('close', () => {
        if (!response.writableFinished) closed.push(request.url ?? '');
      });
      const answer = reply(request, body);
      if (!answer) return;
      const text = JSON.stringify(answer.body);
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const handle = {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    seen,
    closed,
    chats: () => seen.filter((entry) => entry.url === '/v1/chat/completions'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(handle);
  return handle;
}

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'acme',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
};

describe('forwarding', () => {
  it('forwards /v1/models and unknown paths unchanged, status and body', async () => {
    const emulator = await startEmulator({ profile: 'vllm', model: 'qwen' });
    open.push(emulator);
    const { proxy } = await proxyFor(emulator.url);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-forward', maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['qwen']);
    const viaProxy = await fetch(`${proxy.url}/v1/embeddings?x=1`, { method: 'POST', body: '{"input":"a"}' });
    const straight = await fetch(`${emulator.url}/v1/embeddings?x=1`, {
      method: 'POST',
      body: '{"input":"a"}',
    });
    expect(viaProxy.status).toBe(straight.status);
    expect(await viaProxy.text()).toBe(await straight.text());
  });

  it('sends a request that needs no fitting as the very bytes the client sent, unknown fields included', async () => {
    const upstream = await startRecorder(() => ({ status: 200, body: completion }));
    const { proxy } = await proxyFor(upstream.url, { config: undefined });
    const body = `{"model":"acme","messages":[{"role":"system","content":"Be brief.","x_cache":{"ttl":"1h"}},{"role":"user","name":"ann","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"max_tokens":300,"seed":7,"user":"u-1","x_vendor":{"a":[1,2]}}`;
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(completion);
    expect(upstream.chats()[0]?.body).toBe(body);
  });

  it('writes unchanged messages back byte for byte when it lowers a max_tokens the window has no room for', async () => {
    const upstream = await startRecorder(() => ({ status: 200, body: completion }));
    const { proxy } = await proxyFor(upstream.url);
    const messages = [
      { role: 'system', content: 'Be brief.', x_cache: { ttl: '1h' } },
      {
        role: 'user',
        content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
        name: 'ann',
      },
    ];
    await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme', messages, max_tokens: 1_000_000, x_vendor: { a: [1, 2] } }),
    });
    const sent = JSON.parse(upstream.chats()[0]?.body ?? '{}') as Record<string, unknown>;
    expect(sent.x_vendor).toEqual({ a: [1, 2] });
    expect(sent.max_tokens).toBeLessThan(1_000_000);
    expect(JSON.stringify(sent.messages)).toBe(JSON.stringify(messages));
  });
});

describe('credentials', () => {
  const SECRET = 'sk-live-0123456789abcdef';

  it('forwards the auth header upstream, and never logs it or echoes it in an error', async () => {
    // This upstream quotes the key in its overflow message, as some gateways quote what they received.
    const upstream = await startRecorder((request) => ({
      status: 400,
      body: {
        error: {
          message: `key ${String(request.headers.authorization).slice(7)}: This model's maximum context length is 1024 tokens. However, your messages resulted in 4000 tokens.`,
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    }));
    const { proxy, logs } = await proxyFor(upstream.url);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: SECRET, maxRetries: 0 });
    const error = (await client.chat.completions
      .create({ model: 'acme', messages: [{ role: 'user', content: 'hello there' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(400);
    expect(upstream.chats()[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(error.error)).not.toContain(SECRET);
    expect(error.message).toContain('[redacted]');
    expect(JSON.stringify(logs)).not.toContain(SECRET);
    expect(logs.some((entry) => entry.event === 'recovery')).toBe(true);
  });

  it('never echoes the key in a 502', async () => {
    const { proxy, logs } = await proxyFor('http://127.0.0.1:9');
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}`, 'x-api-key': SECRET },
      body: JSON.stringify({ model: 'acme', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).not.toContain(SECRET);
    expect(JSON.stringify(logs)).not.toContain(SECRET);
  });
});

describe('bad input and failures', () => {
  it('answers 413 for a body over the limit, without calling the upstream', async () => {
    const upstream = await startRecorder(() => ({ status: 200, body: completion }));
    const { proxy } = await proxyFor(upstream.url, { maxBodyBytes: 2_000 });
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme', messages: [{ role: 'user', content: 'x'.repeat(5_000) }] }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        code: 'request_too_large',
        message: expect.stringMatching(/over the proxy's limit of 2000 bytes/),
      },
    });
    expect(upstream.seen.filter((entry) => entry.method === 'POST')).toHaveLength(0);
  });

  it('answers 400 in the OpenAI error shape for malformed JSON', async () => {
    const upstream = await startRecorder(() => ({ status: 200, body: completion }));
    const { proxy } = await proxyFor(upstream.url);
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"acme","messages":[',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringMatching(/^the request body is not valid JSON \(.+\); send one JSON object$/),
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_json',
      },
    });
    expect(upstream.chats()).toHaveLength(0);
  });

  it('forwards a body Spillway cannot read as a conversation, for the upstream to judge', async () => {
    const emulator = await startEmulator({ profile: 'openai' });
    open.push(emulator);
    const { proxy } = await proxyFor(emulator.url);
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'wizard', content: 'hi' }] });
    const viaProxy = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', body });
    const straight = await fetch(`${emulator.url}/v1/chat/completions`, { method: 'POST', body });
    expect(viaProxy.status).toBe(400);
    expect(viaProxy.headers.get('x-spillway-fit')).toBe('skipped');
    expect(await viaProxy.text()).toBe(await straight.text());
  });

  it('answers 502 naming the cause when the upstream is down', async () => {
    const { proxy } = await proxyFor('http://127.0.0.1:9');
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-x', maxRetries: 0 });
    const error = (await client.chat.completions
      .create({ model: 'acme', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/cannot reach the upstream http:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
    const models = await fetch(`${proxy.url}/v1/models`);
    expect(models.status).toBe(502);
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toContain('spillway_proxy_upstream_errors_total{reason="unreachable"} 2');
  });

  it('cancels the upstream request when the client goes away', async () => {
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const upstream = await startRecorder((request) => {
      if (request.url === '/v1/chat/completions') arrived();
      // Discovery probes get a 404; the chat request never gets an answer.
      return request.url === '/v1/chat/completions' ? undefined : { status: 404, body: {} };
    });
    const { proxy } = await proxyFor(upstream.url);
    const controller = new AbortController();
    const pending = fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'acme', messages: [{ role: 'user', content: 'hi' }] }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await reached;
    controller.abort();
    await pending;
    await expect.poll(() => upstream.closed, { timeout: 5_000 }).toEqual(['/v1/chat/completions']);
  });
});

describe('health, metrics and Anthropic', () => {
  it('answers /healthz and reports requests, fits and latency in /metrics', async () => {
    const emulator = await startEmulator({ profile: 'vllm', contextLength: 8_192 });
    open.push(emulator);
    const { proxy } = await proxyFor(emulator.url);
    const health = await fetch(`${proxy.url}/healthz`);
    expect(await health.json()).toEqual({
      status: 'ok',
      upstream: emulator.url,
      upstream_format: 'openai',
      store: 'memory',
    });
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-x', maxRetries: 0 });
    await client.chat.completions.create({ model: 'any', messages: [{ role: 'user', content: 'hi' }] });
    const response = await fetch(`${proxy.url}/metrics`);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    expect(text).toContain('spillway_proxy_requests_total{route="chat_completions",status="200"} 1');
    expect(text).toContain('spillway_proxy_requests_total{route="healthz",status="200"} 1');
    expect(text).toContain('spillway_proxy_fits_total 1');
    expect(text).toContain('# TYPE spillway_proxy_added_latency_seconds histogram');
    expect(text).toContain('spillway_proxy_added_latency_seconds_count 1');
    expect(text).toMatch(/spillway_proxy_added_latency_seconds_bucket\{le="\+Inf"\} 1/);
  });

  it('fits /v1/messages for an Anthropic upstream and recovers its prompt-too-long by compaction', async () => {
    const emulator = await startEmulator({ profile: 'anthropic', contextLength: 6_000 });
    open.push(emulator);
    const { proxy } = await proxyFor(emulator.url, { upstreamFormat: 'anthropic' });
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'sk-ant-test', maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Fix the bug.' }];
    for (let turn = 0; turn < 10; turn++) {
      const id = `toolu_01R${turn.toString(36).padStart(3, '0')}history${turn}`;
      messages.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'read_file', input: { path: `f${turn}.ts` } }],
      });
      messages.push({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: fakeToolResult({ name: 'read_file', seed: turn, size: 800 }),
          },
        ],
      });
    }
    const { data, response } = await client.messages
      .create({ model: 'claude-sonnet-4-5', max_tokens: 1_024, system: 'You are a coding agent.', messages })
      .withResponse();
    expect(data.type).toBe('message');
    expect(response.headers.get('x-spillway-recovery')).toMatch(/^(context|budget):compacted$/);
    expect(response.headers.get('x-spillway-window')).toBe('6000');
    // Rejected, then the summary requests (to the same upstream, in Anthropic's format), then the retry.
    const chats = emulator.requests.filter((record) => record.path === '/v1/messages');
    expect(chats[0]?.status).toBe(400);
    expect(chats.at(-1)?.status).toBe(200);
    const summaries = chats.slice(1, -1);
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of summaries) expect(JSON.stringify(summary.body)).toContain(SUMMARY_REQUEST_MARKER);
    expect(JSON.stringify(chats.at(-1)?.body)).not.toContain(SUMMARY_REQUEST_MARKER);
    const error = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', body: '{' });
    expect(await error.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });
});

/**
 * Streaming through the proxy: chunks pass as they arrive, an overflow sent as an error event
 * inside a 200 stream before any content is recovered, and what comes after content reaches the
 * client as the upstream sent it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/index.js';
import {
  countPromptTokens,
  type EmulatorOptions,
  fakeToolResult,
  startEmulator,
} from '../../src/emulator/index.js';
import { startProxy } from '../../src/proxy/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

interface Seen {
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

/** A hand-written upstream: chat requests go to `chat`, everything else is a 404 (discovery). */
async function startUpstream(chat: (request: Seen, response: ServerResponse, index: number) => void) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      const record = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), headers: request.headers };
      seen.push(record);
      chat(record, response, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const handle = {
    url,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(handle);
  return handle;
}

const sse = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  sse({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'acme',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

function startStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

async function proxyFor(upstream: string) {
  const proxy = await startProxy({ upstream, port: 0 });
  open.push(proxy);
  return proxy;
}

describe('streaming through the proxy', () => {
  it('passes chunks through as they arrive, before the upstream has finished', async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const upstream = await startUpstream((_request, response) => {
      startStream(response);
      response.write(chunk({ role: 'assistant', content: '' }));
      response.write(chunk({ content: 'first ' }));
      order.push('upstream sent first');
      // The second chunk waits for the client to have the first one. A proxy that buffered the
      // stream would never deliver it; the guard ends the wait so the test fails instead of hanging.
      const guard = setTimeout(() => {
        order.push('upstream gave up waiting');
        release();
      }, 10_000);
      void released.then(() => {
        clearTimeout(guard);
        order.push('upstream sent second');
        response.write(chunk({ content: 'second' }));
        response.write(chunk({}, 'stop'));
        response.end('data: [DONE]\n\n');
      });
    });
    const proxy = await proxyFor(upstream.url);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-stream', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'acme',
      stream: true,
      messages: [{ role: 'user', content: 'hello' }],
    });
    let text = '';
    let chunks = 0;
    for await (const part of stream) {
      chunks++;
      const content = part.choices[0]?.delta.content ?? '';
      text += content;
      if (content === 'first ') {
        order.push('client got first');
        release();
      }
    }
    expect(order).toEqual(['upstream sent first', 'client got first', 'upstream sent second']);
    expect(text).toBe('first second');
    expect(chunks).toBe(4);
  });

  it('relays an emulator stream byte for byte, as the server sent it', async () => {
    const options: EmulatorOptions = { profile: 'vllm', contextLength: 32_768 };
    const direct = await startEmulator(options);
    const upstream = await startEmulator(options);
    open.push(direct, upstream);
    const proxy = await proxyFor(upstream.url);
    const body = JSON.stringify({
      model: 'any',
      stream: true,
      max_tokens: 512,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Summarize the repository.' }],
    });
    const read = async (base: string) => {
      const response = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return { text: await response.text(), headers: response.headers };
    };
    const viaProxy = await read(proxy.url);
    const straight = await read(direct.url);
    expect(viaProxy.text).toBe(straight.text);
    expect(viaProxy.text.split('\n\n').filter((event) => event.startsWith('data:')).length).toBeGreaterThan(
      3,
    );
    expect(viaProxy.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(viaProxy.headers.get('x-spillway-recovery')).toBe('none');
    // The usage in the stream's last chunk (every other one says `"usage": null`) was read: the
    // same request again is counted from it, not estimated.
    expect(viaProxy.headers.get('x-spillway-count')).toBe('estimate');
    expect((await read(proxy.url)).headers.get('x-spillway-count')).toBe('anchored');
  });

  it('recovers an overflow sent as an error event inside a 200 stream before any content', async () => {
    let rejected = false;
    const upstream = await startUpstream((request, response) => {
      if (JSON.stringify(request.body).includes(SUMMARY_REQUEST_MARKER)) {
        // The compaction's summary request, sent with stream off.
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'chatcmpl-summary',
            object: 'chat.completion',
            created: 1,
            model: 'acme',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: 'Goal: fix the bug. Read ten files.' },
                finish_reason: 'stop',
              },
            ],
          }),
        );
        return;
      }
      startStream(response);
      if (!rejected) {
        rejected = true;
        // OpenRouter's way: a 200 stream whose first event is the error, with the prompt as counted.
        const counted = countPromptTokens(request.body).tokens;
        response.end(
          sse({
            error: {
              message: `This model's maximum context length is 4096 tokens. However, your messages resulted in ${counted} tokens. Please reduce the length of the messages.`,
              code: 400,
            },
          }),
        );
        return;
      }
      response.write(chunk({ role: 'assistant', content: '' }));
      response.write(chunk({ content: 'recovered' }, 'stop'));
      response.end('data: [DONE]\n\n');
    });
    const proxy = await proxyFor(upstream.url);
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Fix the bug.' },
    ];
    for (let turn = 0; turn < 10; turn++) {
      const id = `call_${turn}`;
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: '{}' } }],
      });
      messages.push({
        role: 'tool',
        tool_call_id: id,
        content: fakeToolResult({ name: 'read_file', seed: turn, size: 700 }),
      });
    }
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-stream', maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'acme', stream: true, messages, max_tokens: 1_000 })
      .withResponse();
    let text = '';
    for await (const part of stream) text += part.choices[0]?.delta.content ?? '';
    expect(text).toBe('recovered');
    expect(response.headers.get('x-spillway-recovery')).toBe('context:compacted');
    const [first, ...rest] = upstream.seen.map((seen) => JSON.stringify(seen.body));
    const retried = rest.at(-1) ?? '';
    expect(rest.slice(0, -1).every((body) => body.includes(SUMMARY_REQUEST_MARKER))).toBe(true);
    expect(retried).toContain('Goal: fix the bug. Read ten files.');
    expect(retried.length).toBeLessThan(first?.length ?? 0);
  });

  it('forwards an error event that comes after content as it came, without a retry', async () => {
    const upstream = await startUpstream((_request, response) => {
      startStream(response);
      response.write(chunk({ role: 'assistant', content: 'partial' }));
      response.end(sse({ error: { message: 'upstream overloaded mid-stream', code: 503 } }));
    });
    const proxy = await proxyFor(upstream.url);
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"content":"partial"');
    expect(text).toContain('upstream overloaded mid-stream');
    expect(upstream.seen).toHaveLength(1);
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toContain('spillway_proxy_upstream_errors_total{reason="stream_error"} 1');
  });

  it('cuts the client stream when the upstream stream breaks off after content', async () => {
    const emulator = await startEmulator({
      profile: 'vllm',
      faults: [{ kind: 'stream-cut', requests: [1] }],
    });
    open.push(emulator);
    const proxy = await proxyFor(emulator.url);
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-stream', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'any',
      stream: true,
      messages: [{ role: 'user', content: 'Summarize the repository in detail.' }],
    });
    let chunks = 0;
    const consume = async () => {
      for await (const _part of stream) chunks++;
    };
    await expect(consume()).rejects.toThrow();
    expect(chunks).toBeGreaterThan(0);
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toContain('spillway_proxy_upstream_errors_total{reason="interrupted"} 1');
  });
});

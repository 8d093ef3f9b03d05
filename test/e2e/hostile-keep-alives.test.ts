/**
 * An upstream in a long prefill that keeps its stream alive: OpenRouter's `: OPENROUTER PROCESSING`
 * comments, Anthropic's `ping` events. Directly, a client has the headers and each keep-alive as it
 * is sent; through the proxy it must too, or a client whose read timeout is shorter than the prefill
 * fails only through Spillway. The upstream holds its content back until the test has seen the
 * keep-alive reach the client (an event, not a wait); an overflow sent after keep-alives is still
 * recovered, inside the stream the client already has.
 */
import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});
afterAll(() => writeHostileResults(fileURLToPath(import.meta.url)));

/** How long a keep-alive may take to reach the client before the test calls it held back. */
const PATIENCE_MS = 10_000;

/** A gate the upstream waits at until the test opens it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** An upstream whose chat route is `chat`; everything else is a 404 (no discovery). */
async function startUpstream(chat: (body: string, response: ServerResponse, index: number) => void) {
  let requests = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !/\/v1\/(chat\/completions|messages)$/.test(request.url ?? '')) {
        response.writeHead(404).end();
        return;
      }
      chat(Buffer.concat(chunks).toString('utf8'), response, requests++);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const handle = {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(handle);
  return handle;
}

const openaiChunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

/** A streaming POST to the proxy, with what arrived so far and a promise for a text to arrive. */
function streamFrom(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  let received = '';
  let status = 0;
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const done = new Promise<string>((resolve, reject) => {
    const outgoing = httpRequest(
      `${url}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        status = response.statusCode ?? 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.toString('utf8');
          for (const waiter of waiters.splice(0))
            if (received.includes(waiter.text)) waiter.resolve();
            else waiters.push(waiter);
        });
        response.on('end', () => resolve(received));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
  return {
    done,
    status: () => status,
    /** Resolves `true` once `text` has arrived, `false` if it has not within the patience. */
    arrives(text: string): Promise<boolean> {
      if (received.includes(text)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), PATIENCE_MS);
        waiters.push({
          text,
          resolve: () => {
            clearTimeout(timer);
            resolve(true);
          },
        });
      });
    },
  };
}

const config = parseProxyConfig({ context_length: 32_768, probe_limits: false });

describe('keep-alives during a long prefill', () => {
  it('reach the client at once through the proxy, headers first, before any content', async () => {
    const prefill = gate();
    const upstream = await startUpstream((_body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': OPENROUTER PROCESSING\n\n');
      void prefill.opened.then(() => {
        response.write(openaiChunk('hello'));
        response.end(`${openaiChunk('', 'stop')}data: [DONE]\n\n`);
      });
    });
    const proxy = await startProxy({ upstream: upstream.url, port: 0, config });
    open.push(proxy);
    const stream = streamFrom(proxy.url, '/v1/chat/completions', {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const arrived = await stream.arrives(': OPENROUTER PROCESSING');
    prefill.open();
    const text = await stream.done;
    expect(arrived).toBe(true);
    expect(stream.status()).toBe(200);
    expect(text).toContain('"content":"hello"');
    expect(text.indexOf(': OPENROUTER PROCESSING')).toBeLessThan(text.indexOf('hello'));
    recordHostile('keep_alives', { streams: 1, held_back: arrived ? 0 : 1 });
  });

  it('pass Anthropic pings on at once, and the message events after them', async () => {
    const prefill = gate();
    const upstream = await startUpstream((_body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: ping\ndata: {"type": "ping"}\n\n');
      void prefill.opened.then(() => {
        const events = [
          [
            'message_start',
            {
              type: 'message_start',
              message: {
                id: 'msg',
                type: 'message',
                role: 'assistant',
                content: [],
                model: 'claude',
                usage: { input_tokens: 12, output_tokens: 1 },
              },
            },
          ],
          [
            'content_block_start',
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          ],
          [
            'content_block_delta',
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hello' } },
          ],
          ['content_block_stop', { type: 'content_block_stop', index: 0 }],
          [
            'message_delta',
            { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
          ],
          ['message_stop', { type: 'message_stop' }],
        ] as const;
        response.end(
          events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join(''),
        );
      });
    });
    const proxy = await startProxy({ upstream: upstream.url, port: 0, config });
    open.push(proxy);
    const stream = streamFrom(
      proxy.url,
      '/v1/messages',
      { model: 'claude-test', stream: true, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
      { 'anthropic-version': '2023-06-01' },
    );
    const arrived = await stream.arrives('event: ping');
    prefill.open();
    const text = await stream.done;
    expect(arrived).toBe(true);
    expect(text).toContain('"text":"hello"');
    recordHostile('keep_alives', { streams: 1, held_back: arrived ? 0 : 1 });
  });

  it('still recover an overflow sent after them, inside the stream the client has', async () => {
    const prefill = gate();
    const upstream = await startUpstream((body, response, index) => {
      if (!(JSON.parse(body) as { stream?: boolean }).stream) {
        // Recovery's summary request, sent with stream off.
        const summary = {
          id: 's',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'Earlier turns: old words.' },
              finish_reason: 'stop',
            },
          ],
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(summary));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (index === 0) {
        response.write(': OPENROUTER PROCESSING\n\n');
        void prefill.opened.then(() =>
          response.end(
            `data: ${JSON.stringify({ error: { message: "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion).", code: 400 } })}\n\n`,
          ),
        );
        return;
      }
      response.end(`${openaiChunk('recovered', 'stop')}data: [DONE]\n\n`);
    });
    const proxy = await startProxy({ upstream: upstream.url, port: 0, config });
    open.push(proxy);
    const messages = [
      { role: 'system', content: 'You are terse.' },
      ...Array.from({ length: 16 }, (_, turn) => [
        { role: 'user', content: `turn ${turn}: ${'words of an old turn '.repeat(100)}` },
        { role: 'assistant', content: `answer ${turn}` },
      ]).flat(),
      { role: 'user', content: 'and now?' },
    ];
    const stream = streamFrom(proxy.url, '/v1/chat/completions', {
      model: 'm',
      stream: true,
      max_tokens: 1_000,
      messages,
    });
    const arrived = await stream.arrives(': OPENROUTER PROCESSING');
    prefill.open();
    const text = await stream.done;
    expect(arrived).toBe(true);
    expect(text).toContain('"content":"recovered"');
    expect(text).not.toContain('maximum context length');
    expect(upstream.requests()).toBeGreaterThanOrEqual(2);
    recordHostile('keep_alives', { streams: 1, held_back: arrived ? 0 : 1, recovered_after_keep_alive: 1 });
  });
});

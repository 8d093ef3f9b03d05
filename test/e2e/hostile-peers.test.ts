/**
 * Upstreams that hang or break, through a real proxy on loopback: one whose connections never open,
 * one that accepts and never answers, one that stops mid-stream or mid-body, one that cuts its
 * answer off. Every wait ends at its configured limit with a 504 naming the timeout and the setting
 * that raises it; an answer cut before the client saw any of it is asked for again, by the proxy and
 * by the provider client, as connection failures are.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/core/index.js';
import { createOpenAICompatibleClient } from '../../src/providers/index.js';
import { startProxy, type UpstreamTimeouts } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { type ChatBehaviour, COMPLETION, startJsonUpstream } from '../support/json-upstream.js';
import { startSilentListener } from '../support/silent-listener.js';
import { type ServeProcess, spawnServe } from '../support/spawn-serve.js';

const open: { close(): Promise<void> }[] = [];
const processes: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
  await Promise.all(processes.splice(0).map((item) => item.stop()));
});
/** The longest a wait went on past its configured limit, over every timeout this file provoked. */
let longestPastLimitMs = 0;
afterAll(() => {
  recordHostile('hung_peers', { longest_wait_past_limit_ms: Math.round(longestPastLimitMs) });
  writeHostileResults(fileURLToPath(import.meta.url));
});

/** Counts one wait on a hung upstream: which timeout ended it, and whether it ended past the slack. */
function countWait(timeout: string, elapsed: number, limitMs: number): void {
  longestPastLimitMs = Math.max(longestPastLimitMs, elapsed - limitMs);
  recordHostile('hung_peers', {
    [`${timeout}_timeouts`]: 1,
    hangs_past_limit: elapsed >= limitMs + SLACK_MS ? 1 : 0,
  });
}

/** Limits known from the config, so no discovery probe waits on a hung upstream first. */
const config = parseProxyConfig({ context_length: 32_768, output_cap: 4_096 });
const LIMIT_MS = 400;
/** How far past its limit a wait may end: the event loop, the retry pause, the reply. */
const SLACK_MS = 5_000;

/** A server that accepts connections, reads them, and never writes a byte. */
async function startHungServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.resume();
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function proxyTo(upstream: string, timeouts: Partial<UpstreamTimeouts>) {
  const proxy = await startProxy({ upstream, port: 0, store: 'memory', config, timeouts });
  open.push(proxy);
  return proxy;
}

function chat(url: string, stream = false): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, stream }),
  });
}

interface TimeoutBody {
  error: {
    code: string;
    timeout: string;
    timeout_ms: number;
    flag: string;
    config_key: string;
    message: string;
  };
}

/** Sends, expects a 504 for `timeout` within the limit's slack, and returns how long it took. */
async function expectTimeout(
  send: () => Promise<Response>,
  timeout: string,
  limitMs: number,
): Promise<number> {
  const started = performance.now();
  const response = await send();
  const body = (await response.json()) as TimeoutBody;
  const elapsed = performance.now() - started;
  expect(response.status).toBe(504);
  expect(body.error).toMatchObject({ code: 'upstream_timeout', timeout, timeout_ms: limitMs });
  expect(body.error.message).toContain(body.error.flag);
  expect(body.error.message).toContain(body.error.config_key);
  expect(elapsed).toBeGreaterThanOrEqual(limitMs - 50);
  expect(elapsed).toBeLessThan(limitMs + SLACK_MS);
  countWait(timeout, elapsed, limitMs);
  return elapsed;
}

describe('an upstream that never answers', () => {
  it('whose connections never open: 504 connect timeout', async () => {
    const listener = await startSilentListener();
    open.push(listener);
    const proxy = await proxyTo(`http://127.0.0.1:${listener.port}`, { connectMs: LIMIT_MS });
    await expectTimeout(() => chat(proxy.url), 'connect', LIMIT_MS);
  });

  it('that accepts and never answers: 504 first-byte timeout, for chat, streams and forwarded paths', async () => {
    const hung = await startHungServer();
    open.push(hung);
    const proxy = await proxyTo(hung.url, { firstByteMs: LIMIT_MS });
    await expectTimeout(() => chat(proxy.url), 'first_byte', LIMIT_MS);
    await expectTimeout(() => chat(proxy.url, true), 'first_byte', LIMIT_MS);
    await expectTimeout(() => fetch(`${proxy.url}/v1/models`), 'first_byte', LIMIT_MS);
    expect(proxy.metrics.upstreamErrors.value({ reason: 'timeout' })).toBe(3);
  });

  it('with the timeouts from the command line, named in the 504', async () => {
    const hung = await startHungServer();
    open.push(hung);
    const directory = mkdtempSync(join(tmpdir(), 'spillway-peers-'));
    writeFileSync(
      join(directory, 'proxy.json'),
      JSON.stringify({ context_length: 32_768, output_cap: 4_096 }),
    );
    const serve = await spawnServe([
      '--upstream',
      hung.url,
      '--store',
      'memory',
      '--config',
      join(directory, 'proxy.json'),
      '--first-byte-timeout',
      String(LIMIT_MS),
    ]);
    processes.push(serve);
    const started = performance.now();
    const response = await chat(serve.url);
    expect(response.status).toBe(504);
    expect(((await response.json()) as TimeoutBody).error).toMatchObject({
      timeout: 'first_byte',
      flag: '--first-byte-timeout',
      config_key: 'first_byte_timeout_ms',
    });
    expect(performance.now() - started).toBeLessThan(LIMIT_MS + SLACK_MS);
    countWait('first_byte', performance.now() - started, LIMIT_MS);
  });
});

/** SSE headers and `chunks`, then silence with the connection open. */
function stallAfter(chunks: string[]): ChatBehaviour {
  return (_request, _body, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const chunk of chunks) response.write(`data: ${chunk}\n\n`);
  };
}

const delta = (content: string) => JSON.stringify({ choices: [{ index: 0, delta: { content } }] });

describe('an upstream that stops mid-answer', () => {
  it('before any content of a stream: 504 idle timeout', async () => {
    const upstream = await startJsonUpstream({
      chat: stallAfter([
        JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }),
      ]),
    });
    open.push(upstream);
    const proxy = await proxyTo(upstream.url, { idleMs: LIMIT_MS });
    await expectTimeout(() => chat(proxy.url, true), 'idle', LIMIT_MS);
  });

  it('after content: the client stream is cut within the limit, not left open', async () => {
    const upstream = await startJsonUpstream({ chat: stallAfter([delta('Hel'), delta('lo')]) });
    open.push(upstream);
    const proxy = await proxyTo(upstream.url, { idleMs: LIMIT_MS });
    const started = performance.now();
    const response = await chat(proxy.url, true);
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const decoder = new TextDecoder();
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += decoder.decode(value);
        }
      })(),
    ).rejects.toThrow();
    expect(text).toContain('Hel');
    expect(performance.now() - started).toBeLessThan(LIMIT_MS + SLACK_MS);
    expect(proxy.metrics.upstreamErrors.value({ reason: 'timeout' })).toBe(1);
    countWait('idle', performance.now() - started, LIMIT_MS);
  });

  it('in the middle of a JSON body: 504 idle timeout', async () => {
    const upstream = await startJsonUpstream({
      chat: (_request, _body, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': 1_000 });
        response.write('{"id":"chatcmpl-1","choices":[');
      },
    });
    open.push(upstream);
    const proxy = await proxyTo(upstream.url, { idleMs: LIMIT_MS });
    await expectTimeout(() => chat(proxy.url), 'idle', LIMIT_MS);
  });
});

/** Answers the first `cuts` chat requests with half a body and a reset connection, then whole. */
function cutFirst(cuts: number): ChatBehaviour {
  let seen = 0;
  return (request, _body, response) => {
    seen++;
    const text = JSON.stringify(COMPLETION);
    if (seen > cuts) {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.write(text.slice(0, 40), () => request.socket.destroy());
  };
}

describe('an answer cut off before the client saw it', () => {
  it('is asked for again by the proxy, and the client gets the whole answer', async () => {
    const upstream = await startJsonUpstream({ chat: cutFirst(1) });
    open.push(upstream);
    const proxy = await proxyTo(upstream.url, {});
    const response = await chat(proxy.url);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(COMPLETION);
    expect(upstream.chats).toHaveLength(2);
    recordHostile('cut_bodies', { proxy_requests: 1, proxy_retried: 1, proxy_whole_answers: 1 });
  });

  it('is retried twice at most, then a 502 naming the cut', async () => {
    const upstream = await startJsonUpstream({ chat: cutFirst(100) });
    open.push(upstream);
    const proxy = await proxyTo(upstream.url, {});
    const response = await chat(proxy.url);
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/broke off/);
    expect(upstream.chats).toHaveLength(3);
  });

  it('is asked for again by the provider client, as connection failures are', async () => {
    const upstream = await startJsonUpstream({ chat: cutFirst(1) });
    open.push(upstream);
    const client = createOpenAICompatibleClient({
      baseUrl: `${upstream.url}/v1`,
      retry: { sleep: async () => undefined },
    });
    const request: ChatRequest = {
      format: 'openai',
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      extra: {},
    };
    const reply = await client.send(request);
    expect(reply.message.content).toBe('ok');
    expect(upstream.chats).toHaveLength(2);
    recordHostile('cut_bodies', { client_requests: 1, client_retried: 1 });
  });
});

/**
 * The proxy's own waits counted against the upstream, and a client that half-closes. Through a real
 * proxy on loopback: an upstream that answers at once, in the same process, and then keeps the event
 * loop busy for longer than the first-byte timeout (as fitting a thousand concurrent requests does
 * on two cores) must not turn its answer into a 504, since the answer was in before the limit; and
 * a client that sends a whole request and then half-closes its side of the connection gets its
 * answer.
 */
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { answerCompletion, startJsonUpstream } from '../support/json-upstream.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});
afterAll(() => writeHostileResults(fileURLToPath(import.meta.url)));

const config = parseProxyConfig({ context_length: 32_768, output_cap: 4_096, probe_limits: false });
const FIRST_BYTE_MS = 200;

const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 });

describe('the first-byte timeout', () => {
  it('counts from the request sent, and an answer that came while the proxy was busy is not a 504', async () => {
    let busy = true;
    const upstream = await startJsonUpstream({
      chat(request, received, response) {
        answerCompletion(request, received, response);
        // The answer is out; now the process is busy for three times the limit before it reads it.
        if (!busy) return;
        const until = performance.now() + 3 * FIRST_BYTE_MS;
        while (performance.now() < until);
      },
    });
    open.push(upstream);
    const proxy = await startProxy({
      upstream: upstream.url,
      port: 0,
      store: 'memory',
      config,
      timeouts: { firstByteMs: FIRST_BYTE_MS },
    });
    open.push(proxy);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    busy = false;
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    recordHostile('first_byte_timer', {
      busy_proxy_answers: statuses.length,
      answered_504: statuses.filter((status) => status === 504).length,
    });
  });
});

/** Sends `bytes`, half-closes the connection, and resolves with the final status and body. */
function sendThenHalfClose(port: number, bytes: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      // Interim 1xx answers come first; the final answer is the last status line.
      const text = Buffer.concat(chunks).toString('utf8');
      const finals = [...text.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n/g)].filter(
        (match) => !(match[1] ?? '').startsWith('1'),
      );
      const last = finals.at(-1);
      resolve({
        status: Number(last?.[1] ?? 0),
        body: last === undefined ? '' : text.slice(text.indexOf('\r\n\r\n', last.index) + 4),
      });
    });
  });
}

describe('a client that half-closes after its request', () => {
  it('gets its answer', async () => {
    const upstream = await startJsonUpstream();
    open.push(upstream);
    const proxy = await startProxy({ upstream: upstream.url, port: 0, store: 'memory', config });
    open.push(proxy);
    const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
    const replies = await Promise.all([0, 1, 2].map(() => sendThenHalfClose(proxy.port, request)));
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toContain('"content":"ok"');
    }
    recordHostile('half_close', {
      requests: replies.length,
      answered: replies.filter((reply) => reply.status === 200).length,
    });
  });
});

import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createUpstreamAgents,
  forwardedRequestHeaders,
  forwardedResponseHeaders,
  readResponseBody,
  sendUpstream,
} from './upstream-request.js';

let server: Server | undefined;

afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A response from a loopback server that writes `parts`, then ends, or cuts the connection. */
async function responseOf(parts: string[], { cut = false } = {}): Promise<IncomingMessage> {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const next = (index: number): void => {
      if (index === parts.length) {
        if (cut) response.socket?.destroy();
        else response.end();
        return;
      }
      response.write(parts[index], () => setTimeout(() => next(index + 1), 5));
    };
    next(0);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path: '/' }, resolve);
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('readResponseBody', () => {
  it('reads a body sent in pieces, whole', async () => {
    const body = await readResponseBody(await responseOf(['{"a":', '"bé"', ',"c":1}']));
    expect(body.toString('utf8')).toBe('{"a":"bé","c":1}');
  });

  it('keeps at most maxBytes and discards the rest', async () => {
    const body = await readResponseBody(await responseOf(['12345', '67890', 'abc']), 10);
    expect(body.toString()).toBe('1234567890');
  });

  it('rejects a body the upstream cut before its end', async () => {
    await expect(readResponseBody(await responseOf(['{"partial":', '"tru'], { cut: true }))).rejects.toThrow(
      /aborted|Premature close|socket hang up|ECONNRESET/,
    );
  });
});

describe('forwarded headers', () => {
  const client = {
    host: 'proxy:8080',
    connection: 'keep-alive',
    'content-length': '12',
    authorization: 'Bearer sk-1',
    'content-type': 'text/plain',
    'x-trace': ['a', 'b'],
  };

  it('leaves out hop-by-hop headers, then sets the length, identity and `also` (whose values win)', () => {
    expect(
      forwardedRequestHeaders(client, {
        identity: true,
        bodyBytes: 40,
        also: { 'content-type': 'application/json' },
      }),
    ).toEqual({
      authorization: 'Bearer sk-1',
      'content-type': 'application/json',
      'x-trace': ['a', 'b'],
      'accept-encoding': 'identity',
      'content-length': '40',
    });
  });

  it('keeps the response length only when asked, and adds `also` last', () => {
    const upstream = { 'content-length': '7', 'transfer-encoding': 'chunked', 'x-request-id': 'r1' };
    expect(forwardedResponseHeaders(upstream, { also: { 'x-spillway-cut': 'none' } })).toEqual({
      'x-request-id': 'r1',
      'x-spillway-cut': 'none',
    });
    expect(forwardedResponseHeaders(upstream, { keepLength: true })).toEqual({
      'content-length': '7',
      'x-request-id': 'r1',
    });
  });
});

describe('sendUpstream', () => {
  it("sends to the URL's path and query, its credentials as Basic auth, the same for every request", async () => {
    const seen: Array<{ url: string | undefined; authorization: string | undefined; body: string }> = [];
    server = createServer(async (incoming, response) => {
      const body = await readResponseBody(incoming);
      seen.push({ url: incoming.url, authorization: incoming.headers.authorization, body: body.toString() });
      response.end('ok');
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const url = new URL(`http://user:p%40ss@127.0.0.1:${port}/v1/chat/completions?api-version=1`);
    const agents = createUpstreamAgents();
    try {
      for (const text of ['{"a":1}', '{"a":2}']) {
        const body = Buffer.from(text);
        const answer = await sendUpstream({
          url,
          method: 'POST',
          headers: { 'content-length': String(body.length) },
          body,
          agents,
        });
        expect((await readResponseBody(answer)).toString()).toBe('ok');
      }
    } finally {
      agents.destroy();
    }
    const basic = `Basic ${Buffer.from('user:p@ss').toString('base64')}`;
    expect(seen).toEqual([
      { url: '/v1/chat/completions?api-version=1', authorization: basic, body: '{"a":1}' },
      { url: '/v1/chat/completions?api-version=1', authorization: basic, body: '{"a":2}' },
    ]);
  });
});

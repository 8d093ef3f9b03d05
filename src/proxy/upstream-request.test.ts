import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readResponseBody } from './upstream-request.js';

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

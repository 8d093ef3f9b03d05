/**
 * HTTP as an adversary speaks it: raw bytes over a TCP socket, so a test can send request lines and
 * bodies that no HTTP client library would write, and cut an upload half-way.
 */
import { connect, type Socket } from 'node:net';

/** What came back on a raw connection. */
export interface RawReply {
  /** The status of the first response line, or 0 when the connection closed without one. */
  status: number;
  /** Everything after the blank line that ends the headers. */
  body: string;
  headers: Record<string, string>;
}

function parseReply(text: string): RawReply {
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: end === -1 ? '' : text.slice(end + 4) };
}

/**
 * Sends `bytes` on a new connection to `port` and resolves with what came back once the server
 * closes it (send `Connection: close`). The client never half-closes: a server may take a FIN as the
 * client giving up.
 */
export function rawRequest(port: number, bytes: string | Buffer): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the reply was read is the server closing a connection it was done with.
      if (chunks.length > 0) resolve(parseReply(Buffer.concat(chunks).toString('utf8')));
      else reject(error);
    });
    socket.on('close', () => resolve(parseReply(Buffer.concat(chunks).toString('utf8'))));
  });
}

/** A request whose body is only partly sent: resolves with the socket once `sent` bytes are out. */
export function startUpload(
  port: number,
  { path, declared, sent }: { path: string; declared: number; sent: Buffer },
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      socket.write(sent, () => resolve(socket));
    });
    socket.on('error', reject);
  });
}

/**
 * @module
 * Reading a client's request body within the proxy's size limit.
 */
import type { IncomingMessage } from 'node:http';

/** A request body as read. */
export type RequestBody = { tooLarge: false; body: Buffer } | { tooLarge: true; bytes: number };

/** The default limit on request bodies: 32 MiB, Anthropic's documented request limit. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Reads a request body of at most `maxBytes`. A declared `content-length` over the limit is refused
 * before anything is read; a body that grows past it stops being kept, and past four times the limit
 * the connection is cut (the client has had its chance to read the 413).
 */
export function readRequestBody(request: IncomingMessage, maxBytes: number): Promise<RequestBody> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    let bytes = 0;
    let done = false;
    const chunks: Buffer[] = [];
    const finish = (result: RequestBody): void => {
      if (done) return;
      done = true;
      resolve(result);
    };
    if (Number.isFinite(declared) && declared > maxBytes) {
      finish({ tooLarge: true, bytes: declared });
    }
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxBytes) chunks.push(chunk);
      else if (!done) {
        chunks.length = 0;
        finish({ tooLarge: true, bytes });
      }
      if (bytes > maxBytes * 4) request.destroy();
    });
    request.on('end', () => finish({ tooLarge: false, body: Buffer.concat(chunks) }));
    request.on('error', (error) => {
      if (!done) {
        done = true;
        reject(error);
      }
    });
  });
}

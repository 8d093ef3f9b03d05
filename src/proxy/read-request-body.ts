/**
 * @module
 * Reading a client's request body within the proxy's size limit.
 */
import type { IncomingMessage } from 'node:http';

/** A request body as read: whole, over the limit, or cut off by the client. */
export type RequestBody =
  | { kind: 'body'; body: Buffer }
  | { kind: 'too_large'; bytes: number }
  /** The client closed its connection before the body was complete. */
  | { kind: 'aborted'; bytes: number };

/** The default limit on request bodies: 32 MiB, Anthropic's documented request limit. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Reads a request body of at most `maxBytes`. A declared `content-length` over the limit is refused
 * before anything is read; a body that grows past it stops being kept, and past four times the limit
 * the connection is cut (the client has had its chance to read the 413). A client that goes away
 * mid-upload is an outcome (`aborted`), not an error.
 */
export function readRequestBody(request: IncomingMessage, maxBytes: number): Promise<RequestBody> {
  return new Promise((resolve) => {
    const declared = Number(request.headers['content-length']);
    let bytes = 0;
    let done = false;
    const chunks: Buffer[] = [];
    const finish = (result: RequestBody): void => {
      if (done) return;
      done = true;
      chunks.length = 0;
      resolve(result);
    };
    if (Number.isFinite(declared) && declared > maxBytes) {
      finish({ kind: 'too_large', bytes: declared });
    }
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes * 4) request.destroy();
      if (done) return;
      if (bytes <= maxBytes) chunks.push(chunk);
      else finish({ kind: 'too_large', bytes });
    });
    // A body that came in one piece is that piece (the parser's slice of its own read, not reused).
    request.on('end', () =>
      finish({
        kind: 'body',
        body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, bytes),
      }),
    );
    // `aborted` (the socket closed mid-body) is followed by `close`; an `error` is a reset.
    request.on('error', () => finish({ kind: 'aborted', bytes }));
    request.on('close', () => {
      if (!request.complete) finish({ kind: 'aborted', bytes });
    });
  });
}

/** Bodies already parsed while the proxy screened them, so the handler does not parse them again. */
const parsedBodies = new WeakMap<Buffer, unknown>();

/** Remembers the parsed value of a body for {@link parseRequestBody}. */
export function rememberParsedBody(body: Buffer, value: unknown): void {
  parsedBodies.set(body, value);
}

/**
 * The JSON value of a request body: the one parsed while it was screened, else parsed now (throws
 * `SyntaxError` for text that is not JSON, as `JSON.parse` does).
 */
export function parseRequestBody(body: Buffer): unknown {
  if (parsedBodies.has(body)) return parsedBodies.get(body);
  return JSON.parse(body.toString('utf8'));
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpReply } from './profiles/profile.js';

/** A request body as read: its text (empty when it was too large) and its size in bytes. */
export interface ReadBody {
  text: string;
  bytes: number;
  tooLarge: boolean;
}

/**
 * Reads a request body, keeping at most `maxBytes`. A larger body is drained (so the client can read
 * the 413 that follows) up to four times the limit, after which the connection is cut.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let done = false;
    const finish = (result: ReadBody): void => {
      if (done) return;
      done = true;
      resolve(result);
    };
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxBytes) chunks.push(chunk);
      else chunks.length = 0;
      if (bytes > maxBytes * 4) {
        finish({ text: '', bytes, tooLarge: true });
        request.pause();
      }
    });
    request.on('end', () =>
      finish(
        bytes > maxBytes
          ? { text: '', bytes, tooLarge: true }
          : { text: Buffer.concat(chunks).toString('utf8'), bytes, tooLarge: false },
      ),
    );
    request.on('error', (error) => {
      if (!done) {
        done = true;
        reject(error);
      }
    });
  });
}

/** Sends a reply: an object as JSON, a string as text. */
export function sendReply(
  response: ServerResponse,
  reply: HttpReply,
  { close = false }: { close?: boolean } = {},
): void {
  if (response.headersSent || response.destroyed) return;
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  const headers: Record<string, string | number> = {
    'content-type': typeof reply.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  };
  if (close) headers.connection = 'close';
  response.writeHead(reply.status, headers);
  response.end(text);
}

/** Starts a server-sent event stream. */
export function startEventStream(response: ServerResponse, headers: Record<string, string> = {}): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
}

/**
 * Writes `frames` to a started stream and ends it; with `cutAfter`, writes only that many frames and
 * then destroys the socket once they are flushed (the "stream cut mid-reply" fault).
 */
export function writeFrames(
  response: ServerResponse,
  frames: readonly string[],
  { cutAfter }: { cutAfter?: number } = {},
): void {
  if (cutAfter === undefined) {
    response.end(frames.join(''));
    return;
  }
  const sent = frames.slice(0, cutAfter).join('');
  response.write(sent, () => response.socket?.destroy());
}

/** Sends a JSON body of which only the first half arrives before the socket is destroyed. */
export function sendCutJson(response: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.write(text.slice(0, Math.floor(text.length / 2)), () => response.socket?.destroy());
}

/** Sends a 200 whose JSON body is cut in half (the non-streaming form of the malformed-SSE fault). */
export function sendMalformedJson(response: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body).slice(0, Math.floor(JSON.stringify(body).length / 2));
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** Splits text into stream deltas of a few words each. */
export function deltaPieces(text: string, size = 16): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const word of text.split(/(?<=\s)/)) {
    current += word;
    if (current.length >= size) {
      pieces.push(current);
      current = '';
    }
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

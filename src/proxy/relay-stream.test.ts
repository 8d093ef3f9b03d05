import { once } from 'node:events';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventText, relayStream } from './relay-stream.js';

describe('EventText', () => {
  it('decodes a stream cut anywhere as TextDecoder decodes it whole, its byte-order mark dropped', () => {
    const text = fc.string({
      unit: fc.constantFrom('d', 'a', ':', '\n', 'é', '€', '😀', '\ufeff', '\ud800'),
    });
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.oneof(text, fc.uint8Array({ maxLength: 16 })),
        fc.array(fc.nat(), { maxLength: 6 }),
        (bom, body, cuts) => {
          // Text, or bytes that need not be UTF-8.
          const bytes = Buffer.concat([
            Buffer.from(bom ? '\ufeff' : ''),
            typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body),
          ]);
          const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const decoder = new EventText();
          let out = '';
          let from = 0;
          for (const cut of [...at, bytes.length]) {
            out += decoder.write(bytes.subarray(from, cut));
            from = cut;
          }
          out += decoder.end();
          expect(out).toBe(new TextDecoder().decode(bytes));
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

/** A client's response as the relay sees it: what was written, and how often headers were sent. */
function fakeClient(): {
  response: ServerResponse;
  written: Buffer[];
  commit: () => void;
  commits: () => number;
} {
  const written: Buffer[] = [];
  let commits = 0;
  const response = {
    headersSent: false,
    destroyed: false,
    write(chunk: Buffer) {
      written.push(Buffer.from(chunk));
      return true;
    },
    writableEnded: false,
    end() {},
    destroy() {},
    cork() {},
    uncork() {},
  };
  return {
    response: response as unknown as ServerResponse,
    written,
    commit: () => {
      commits++;
      response.headersSent = true;
    },
    commits: () => commits,
  };
}

/**
 * An OpenAI stream: a role preamble, `contents.length` content chunks (the one at `errorAt` an error
 * event instead), a usage chunk, `[DONE]`.
 */
function openAIStream(contents: string[], promptTokens: number, comment: boolean, errorAt = -1): string {
  const chunk = (delta: object, extra: object = {}) =>
    `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], usage: null, ...extra })}\n\n`;
  return [
    comment ? ': PROCESSING\n\n' : '',
    chunk({ role: 'assistant', content: '' }),
    ...contents.map((content, index) =>
      index === errorAt
        ? `data: ${JSON.stringify({ error: { message: 'upstream failed', type: 'server_error' } })}\n\n`
        : chunk({ content }),
    ),
    `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: 3 } })}\n\n`,
    'data: [DONE]\n\n',
  ].join('');
}

describe('relayStream', () => {
  it('passes every byte of a stream on, however it is cut into chunks, and finds its usage', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: fc.constantFrom('a', ' ', 'é', '\n', '"', ':', 'usage', 'error') }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.option(fc.nat({ max: 5 }), { nil: undefined }),
        async (contents, promptTokens, comment, cuts, errorAt) => {
          // An error event in place of a content after the first one that has text.
          const first = contents.findIndex((content) => content !== '');
          const errorIndex =
            errorAt !== undefined && first !== -1 && errorAt > first && errorAt < contents.length
              ? errorAt
              : -1;
          const bytes = Buffer.from(openAIStream(contents, promptTokens, comment, errorIndex));
          const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let from = 0;
          for (const cut of [...at, bytes.length]) {
            if (cut > from) chunks.push(bytes.subarray(from, cut));
            from = cut;
          }
          const client = fakeClient();
          const outcome = await relayStream({
            upstream: Readable.from(chunks) as unknown as IncomingMessage,
            response: client.response,
            commit: client.commit,
            signal: new AbortController().signal,
          });
          expect(outcome).toEqual({
            kind: 'relayed',
            promptTokens,
            errorAfterContent: errorIndex !== -1,
            interrupted: false,
          });
          expect(Buffer.concat(client.written).toString()).toBe(bytes.toString());
          expect(client.commits()).toBe(1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds usage whose object begins on the next data line of its event', async () => {
    const content = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'hi' } }], usage: null })}\n\n`;
    const usage = 'data: {"choices":[],"usage":\ndata: {"prompt_tokens":812,"completion_tokens":1}}\n\n';
    const client = fakeClient();
    const bytes = Buffer.from(`${content}${content}${usage}data: [DONE]\n\n`);
    const outcome = await relayStream({
      upstream: Readable.from([bytes]) as unknown as IncomingMessage,
      response: client.response,
      commit: client.commit,
      signal: new AbortController().signal,
    });
    expect(outcome).toEqual({
      kind: 'relayed',
      promptTokens: 812,
      errorAfterContent: false,
      interrupted: false,
    });
    expect(Buffer.concat(client.written).toString()).toBe(bytes.toString());
  });

  it('holds back events until content, and hands back an error that comes first', async () => {
    const error = `data: ${JSON.stringify({ error: { message: 'prompt is too long', code: 'context_length_exceeded' } })}\n\n`;
    const text = `: PROCESSING\n\ndata: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] })}\n\n${error}`;
    const client = fakeClient();
    const bytes = Buffer.from(text);
    const outcome = await relayStream({
      upstream: Readable.from([bytes.subarray(0, 20), bytes.subarray(20)]) as unknown as IncomingMessage,
      response: client.response,
      commit: client.commit,
      signal: new AbortController().signal,
    });
    expect(outcome.kind).toBe('error-before-content');
    expect(outcome.kind === 'error-before-content' && outcome.text).toContain('context_length_exceeded');
    // Only the comment went out.
    expect(Buffer.concat(client.written).toString()).toBe(': PROCESSING\n\n');
  });

  describe('to a client over HTTP', () => {
    /**
     * A server on loopback whose every response relays `upstream()`; the writes its sockets made
     * (each `_write` or `_writev` is one system call's worth of bytes handed to the socket).
     */
    async function relayServer(
      upstream: () => Readable,
    ): Promise<{ url: URL; writes: () => number; close: () => void }> {
      let writes = 0;
      const server = createServer((_, response) => {
        const socket = response.socket as unknown as Record<
          '_write' | '_writev',
          (...args: unknown[]) => unknown
        >;
        for (const method of ['_write', '_writev'] as const) {
          const original = socket[method].bind(socket);
          socket[method] = (...args: unknown[]) => {
            writes++;
            return original(...args);
          };
        }
        void relayStream({
          upstream: upstream() as unknown as IncomingMessage,
          response,
          commit: () => response.writeHead(200, { 'content-type': 'text/event-stream' }),
          signal: new AbortController().signal,
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      return { url: new URL(`http://127.0.0.1:${port}/`), writes: () => writes, close: () => server.close() };
    }

    it('sends a stream that arrives whole, its closing chunk included, in one write', async () => {
      const bytes = Buffer.from(openAIStream(['Hello', ' there'], 120, false));
      const relay = await relayServer(() => Readable.from([bytes]));
      try {
        const answer = await new Promise<IncomingMessage>((resolve) => request(relay.url, resolve).end());
        const body: Buffer[] = [];
        for await (const chunk of answer) body.push(chunk as Buffer);
        expect(Buffer.concat(body).toString()).toBe(bytes.toString());
        expect(relay.writes()).toBe(1);
      } finally {
        relay.close();
      }
    });

    it('passes a chunk on while the upstream is still silent', async () => {
      const upstream = new PassThrough();
      const relay = await relayServer(() => upstream);
      try {
        const first = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hi' } }], usage: null })}\n\n`;
        // The headers go out with the first content.
        upstream.write(first);
        const answer = await new Promise<IncomingMessage>((resolve) => request(relay.url, resolve).end());
        const chunks = answer[Symbol.asyncIterator]();
        // The upstream says nothing more until the client has the first chunk.
        const received = await chunks.next();
        expect(String(received.value)).toBe(first);
        upstream.end('data: [DONE]\n\n');
        const rest: Buffer[] = [];
        for (let next = await chunks.next(); !next.done; next = await chunks.next())
          rest.push(next.value as Buffer);
        expect(Buffer.concat(rest).toString()).toBe('data: [DONE]\n\n');
      } finally {
        relay.close();
      }
    });
  });
});

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
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
    end() {},
    destroy() {},
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
});

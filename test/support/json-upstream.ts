/**
 * A bare OpenAI-compatible upstream for tests that need the upstream to misbehave on purpose: it
 * reports `max_model_len` on `GET /v1/models` as vLLM does, and answers chat requests with `chat`
 * (default: a short completion once the body is read). It counts what it received, never parses
 * large bodies, and ends every open connection on close.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A completion as vLLM sends it, with usage. */
export const COMPLETION = {
  id: 'chatcmpl-test',
  object: 'chat.completion',
  created: 1,
  model: 'test-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
};

/** A running test upstream. */
export interface JsonUpstream {
  url: string;
  /** Chat requests received (counted when their body was read). */
  chats: { bytes: number }[];
  /** The request target of every request received, in order. */
  seen: string[];
  /** Connections accepted. */
  connections(): number;
  close(): Promise<void>;
}

export type ChatBehaviour = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void;

/** Sends {@link COMPLETION}. */
export const answerCompletion: ChatBehaviour = (_request, _body, response) => {
  const text = JSON.stringify(COMPLETION);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
};

export async function startJsonUpstream({
  contextLength = 32_768,
  chat = answerCompletion,
}: {
  contextLength?: number;
  chat?: ChatBehaviour;
} = {}): Promise<JsonUpstream> {
  const chats: { bytes: number }[] = [];
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((request, response) => {
    seen.push(request.url ?? '');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (request.url === '/v1/models') {
        const text = JSON.stringify({
          object: 'list',
          data: [{ id: 'test-model', object: 'model', max_model_len: contextLength }],
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end(text);
        return;
      }
      if (request.url === '/v1/chat/completions') {
        chats.push({ bytes: body.length });
        chat(request, body, response);
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
    });
  });
  server.on('connection', (socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    chats,
    seen,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SpillwayError } from '../core/index.js';
import { countTemplateTokens, encodeRendered } from './count-prompt-tokens.js';
import { parseFaults } from './faults.js';
import { type ChatContext, handleChat } from './handle-chat.js';
import { geminiCallOf, handleGemini } from './handle-gemini.js';
import { handleResponses } from './handle-responses.js';
import { readBody, sendReply } from './http.js';
import { createProfile } from './profiles/index.js';
import { MAX_BODY_BYTES } from './profiles/openai.js';
import { codingAgentScript, parseScript } from './script.js';
import { getTokenizer } from './tokenizer.js';
import type { Emulator, EmulatorOptions, EmulatorRequestRecord } from './types.js';

function positiveInteger(value: number | undefined, name: string, min = 1): void {
  if (value !== undefined && (!Number.isInteger(value) || value < min))
    throw new SpillwayError(
      'invalid_config',
      `${name} must be an integer >= ${min}, got ${JSON.stringify(value)}`,
    );
}

function parseJson(text: string): { body?: unknown; error?: string } {
  if (text.trim() === '') return { error: 'the body is empty' };
  try {
    return { body: JSON.parse(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The path of a request target, or `undefined` when the URL parser rejects it (`//%zz/`, `http://[/x`). */
function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://emulator').pathname;
  } catch {
    return undefined;
  }
}

/**
 * What uvicorn (the server under vLLM, SGLang and LiteLLM) answers a request it cannot parse:
 * `Invalid HTTP request received.` (uvicorn/protocols/http/httptools_impl.py), status 400.
 */
const INVALID_REQUEST_REPLY = { status: 400, body: 'Invalid HTTP request received.' };

const RESPONSES_PATH = '/v1/responses';

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts a backend emulator: a real HTTP server on loopback that counts tokens, enforces limits and
 * fails the way the chosen server does, answering with a scripted model. Every request is caught:
 * a bug in a handler becomes a 500 in the profile's envelope, never a crash.
 *
 * @example
 * import OpenAI from 'openai';
 * import { startEmulator } from 'spillway/testing';
 *
 * const emulator = await startEmulator({ profile: 'vllm', contextLength: 8_192 });
 * const client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'unused' });
 * const completion = await client.chat.completions.create({ model: 'any', messages: [{ role: 'user', content: 'hi' }] });
 * console.log(completion.usage?.prompt_tokens, emulator.requests.length);
 * await emulator.close();
 */
export async function startEmulator(options: EmulatorOptions): Promise<Emulator> {
  const { port = 0, host = '127.0.0.1', seed = 0 } = options;
  positiveInteger(port, 'port', 0);
  if (port > 65_535) throw new SpillwayError('invalid_config', `port must be <= 65535, got ${port}`);
  positiveInteger(options.contextLength, 'contextLength');
  positiveInteger(options.outputCap, 'outputCap');
  positiveInteger(seed, 'seed', 0);
  if (options.scale !== undefined && !(options.scale > 0 && Number.isFinite(options.scale)))
    throw new SpillwayError(
      'invalid_config',
      `scale must be a number > 0, got ${JSON.stringify(options.scale)}`,
    );
  const profile = createProfile(options.profile, {
    model: options.model,
    contextLength: options.contextLength,
    outputCap: options.outputCap,
    scale: options.scale,
    wording: options.wording,
    seed,
  });
  const context: ChatContext = {
    profile,
    tokenizer: getTokenizer(options.tokenizer ?? 'o200k'),
    script: options.script === undefined ? codingAgentScript({ seed }) : parseScript(options.script),
    scriptChosen: options.script !== undefined,
    faults: parseFaults(options.faults ?? []),
    seed,
  };
  const requests: EmulatorRequestRecord[] = [];
  const stored = new Map<string, unknown[]>();
  let chatRequests = 0;

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
    record: EmulatorRequestRecord,
  ): Promise<void> => {
    const read = await readBody(request, MAX_BODY_BYTES);
    record.bytes = read.bytes;
    const isResponses =
      request.method === 'POST' && record.path === RESPONSES_PATH && profile.servesResponses === true;
    const gemini = profile.servesGemini ? geminiCallOf(request.method ?? 'GET', record.path) : undefined;
    const isChat =
      (request.method === 'POST' && record.path === profile.chatPath) ||
      isResponses ||
      (gemini !== undefined && gemini.method !== 'countTokens');
    if (isChat) {
      chatRequests += 1;
      record.chatNumber = chatRequests;
    }
    if (read.tooLarge) {
      record.badInput = 'too_large';
      record.status = 413;
      sendReply(
        response,
        profile.badInput('too_large', { bytes: read.bytes, requestNumber: record.chatNumber }),
        { close: true },
      );
      return;
    }
    const parsed = parseJson(read.text);
    record.body = parsed.error === undefined ? parsed.body : read.text.slice(0, 4_096);
    if (gemini) {
      await handleGemini(context, {
        response,
        parsed,
        record,
        requestNumber: record.chatNumber ?? chatRequests,
        call: gemini,
        sse: /[?&]alt=sse(?:&|$)/.test(request.url ?? ''),
      });
      return;
    }
    if (isResponses) {
      await handleResponses(context, {
        response,
        parsed,
        record,
        requestNumber: record.chatNumber ?? chatRequests,
        stored,
      });
      return;
    }
    if (isChat) {
      await handleChat(context, {
        response,
        parsed,
        record,
        requestNumber: record.chatNumber ?? chatRequests,
      });
      return;
    }
    const route = profile.routes[`${request.method} ${record.path}`];
    const reply = route
      ? route({
          body: parsed.body,
          count: (input) => countTemplateTokens(input, context.tokenizer),
          encode: (text, { parseSpecial }) => encodeRendered(text, context.tokenizer, { parseSpecial }),
        })
      : profile.badInput('not_found', { method: request.method, path: record.path });
    record.status = reply.status;
    sendReply(response, reply);
  };

  const server = createServer((request, response) => {
    const path = pathOf(request.url);
    const record: EmulatorRequestRecord = {
      number: requests.length + 1,
      method: request.method ?? 'GET',
      path: path ?? request.url ?? '',
      bytes: 0,
      status: 0,
    };
    requests.push(record);
    if (path === undefined) {
      request.resume();
      record.status = 400;
      sendReply(response, INVALID_REQUEST_REPLY, { close: true });
      return;
    }
    handle(request, response, record).catch((error: unknown) => {
      record.status = 500;
      record.note = { error: error instanceof Error ? error.message : String(error) };
      if (!response.headersSent)
        sendReply(
          response,
          profile.failure('server_error', { retryAfter: 0, requestNumber: record.chatNumber ?? 0 }),
        );
      else response.destroy();
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(host)}:${boundPort}`,
    port: boundPort,
    requests,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/**
 * @module
 * The Gemini API through the proxy: `POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent` go through the conversation's driver as any chat request does (the
 * model from the URL; fitted, sent, recovered once), and `:countTokens` is answered for the request
 * Spillway would send, as the other counting endpoints are (`answerCount`): fitted, then counted by
 * the upstream's own `countTokens`, else by its counting endpoint (`/tokenize`…), else by Spillway.
 * A request that continues cached content (`cachedContent`) holds part of its conversation on the
 * server, where Spillway can neither count nor cut it: it goes unchanged, and its answer says so in
 * `x-spillway-fit`.
 */
import { type ChatRequest, readRequest, SpillwayError } from '../core/index.js';
import { forwardUnchanged } from './forward-unchanged.js';
import { handleChatRequest } from './handle-chat-request.js';
import { answerCount } from './handle-count-tokens.js';
import type { Exchange, ProxyRuntime } from './proxy-runtime.js';
import { parseRequestBody } from './read-request-body.js';

/** A Gemini API call: the model and the method its path names. */
export interface GeminiCall {
  model: string;
  method: 'generateContent' | 'streamGenerateContent' | 'countTokens';
}

/** The `x-spillway-fit` value of a request whose context the server holds. */
export const CACHED_CONTENT_FIT = 'server-state; cachedContent';

const GEMINI_PATH =
  /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** The Gemini call of a path (`/v1beta/models/gemini-2.5-pro:generateContent`), if it is one. */
export function geminiCallOf(pathname: string): GeminiCall | undefined {
  const match = GEMINI_PATH.exec(pathname);
  if (!match) return undefined;
  let model: string;
  try {
    model = decodeURIComponent(match[1] as string);
  } catch {
    return undefined;
  }
  return { model, method: match[2] as GeminiCall['method'] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parsed(body: Buffer): unknown {
  try {
    return parseRequestBody(body);
  } catch {
    return undefined;
  }
}

/** `countTokens` takes `{contents}` or `{generateContentRequest}`: the request it counts. */
function countedRequest(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  return isRecord(value.generateContentRequest) ? value.generateContentRequest : value;
}

/** The request a `countTokens` body counts, read; `undefined` when it is none Spillway can read. */
function readCounted(body: Buffer, model: string): ChatRequest | undefined {
  const inner = countedRequest(parsed(body));
  if (inner === undefined) return undefined;
  try {
    return readRequest(inner, { format: 'gemini', model });
  } catch (error) {
    if (SpillwayError.isInstance(error) && error.code === 'invalid_transcript') return undefined;
    throw error;
  }
}

async function countTokens(
  runtime: ProxyRuntime,
  exchange: Exchange,
  body: Buffer,
  model: string,
): Promise<void> {
  const request = readCounted(body, model);
  if (request === undefined) {
    // Not a conversation Spillway can read: the upstream is the judge of what it accepts.
    await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': 'skipped' } });
    return;
  }
  await answerCount({ runtime, exchange, body, format: 'gemini', request });
}

/**
 * Handles a Gemini API call.
 *
 * @example
 * await handleGeminiRequest({ runtime, exchange, body, call: { model: 'gemini-2.5-pro', method: 'generateContent' } });
 */
export async function handleGeminiRequest({
  runtime,
  exchange,
  body,
  call,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  call: GeminiCall;
}): Promise<void> {
  const value = parsed(body);
  if (isRecord(countedRequest(value)) && typeof countedRequest(value)?.cachedContent === 'string') {
    runtime.metrics.passthroughs.add({ api: 'gemini', reason: 'cached_content' });
    runtime.log({ level: 'info', event: 'passthrough', api: 'gemini', reason: 'cached_content' });
    await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': CACHED_CONTENT_FIT } });
    return;
  }
  if (call.method === 'countTokens') await countTokens(runtime, exchange, body, call.model);
  else await handleChatRequest({ runtime, exchange, body, format: 'gemini', model: call.model });
}

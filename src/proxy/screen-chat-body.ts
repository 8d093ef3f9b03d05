/**
 * @module
 * What happens to a chat body before the handler reads it: nesting too deep is a 400 before anything
 * parses it; a small body is decoded and parsed once, for the handler; a large body's heavy work
 * (parsing, counting its texts) is done in one lane, a step at a time with the event loop free in
 * between, so large bodies wait for each other and never for long in front of a small request.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  type ChatRequest,
  estimateMessage,
  estimateTools,
  jsonTextDepthExcess,
  MAX_JSON_DEPTH,
  readRequest,
  type TokenCounter,
  tokenizerFamilyOf,
  tooDeepMessage,
} from '../core/index.js';
import { cachedEstimator } from './cached-estimator.js';
import { type Exchange, type ProxyRuntime, sendProxyError } from './proxy-runtime.js';
import { rememberParsedBody } from './read-request-body.js';

/** Bodies from this size on are prepared in the large-body lane (1 MiB, some 250,000 tokens). */
export const LARGE_BODY_BYTES = 1024 * 1024;

/** Every text the estimator counts for a request (contents, arguments, ids, schemas), in order. */
export function estimatedTexts(request: Pick<ChatRequest, 'messages' | 'tools'>): string[] {
  const texts: string[] = [];
  const recorder: TokenCounter = {
    name: 'recorder',
    count(text) {
      texts.push(text);
      return 0;
    },
  };
  for (const message of request.messages) estimateMessage(message, recorder);
  estimateTools(request.tools, recorder);
  return texts;
}

/**
 * Parses a large body and counts its texts ahead of the fit, pausing between steps. Whatever fails
 * here (not JSON, not a conversation) is left for the handler to answer as it always does.
 */
async function prepareLarge(body: Buffer, exchange: Exchange): Promise<void> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return;
  }
  rememberParsedBody(body, value);
  let request: ChatRequest;
  try {
    request = readRequest(value, { format: exchange.format });
  } catch {
    return;
  }
  await nextTurn();
  const counter = cachedEstimator(tokenizerFamilyOf(request.model));
  await counter.warm(estimatedTexts(request), async () => {
    if (exchange.signal.aborted) throw new Error('the client went away');
    await nextTurn();
  });
}

/**
 * The depth check of a body's text: `true` when the body may go on, else it was answered 400
 * `json_too_deep`, naming the byte where it went too deep.
 */
function checkDepth(exchange: Exchange, text: string, byteOffset: (offset: number) => number): boolean {
  const excess = jsonTextDepthExcess(text);
  if (excess === undefined) return true;
  sendProxyError(exchange, {
    status: 400,
    message: `${tooDeepMessage('the request body', MAX_JSON_DEPTH)} (byte ${byteOffset(excess.offset)} is level ${MAX_JSON_DEPTH + 1})`,
    type: 'invalid_request_error',
    code: 'json_too_deep',
  });
  return false;
}

/**
 * A body under {@link LARGE_BODY_BYTES}: decoded once, its depth checked on that text, and parsed
 * for the handler (a body that is not JSON is left for the handler to answer).
 */
function screenSmall(exchange: Exchange, body: Buffer): boolean {
  const text = body.toString('utf8');
  if (!checkDepth(exchange, text, (offset) => Buffer.byteLength(text.slice(0, offset)))) return false;
  try {
    rememberParsedBody(body, JSON.parse(text));
  } catch {
    // Not JSON: the handler answers it as it answers every body it cannot parse.
  }
  return true;
}

/**
 * Screens a chat body: `true` when the handler may take it, `false` when it was answered here. A
 * large body is checked and prepared in `runtime.largeBodies`, its lane.
 *
 * @example
 * if (await screenChatBody({ runtime, exchange, body })) await handleChatRequest({ runtime, exchange, body, format });
 */
export async function screenChatBody({
  runtime,
  exchange,
  body,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
}): Promise<boolean> {
  if (body.length < LARGE_BODY_BYTES) return screenSmall(exchange, body);
  return runtime.largeBodies.run(async () => {
    if (exchange.signal.aborted) return false;
    await nextTurn();
    // latin1 maps each byte to one character: the brackets and quotes the scan looks for are ASCII.
    if (!checkDepth(exchange, body.toString('latin1'), (offset) => offset)) return false;
    await nextTurn();
    await prepareLarge(body, exchange).catch(() => undefined);
    return !exchange.signal.aborted;
  });
}

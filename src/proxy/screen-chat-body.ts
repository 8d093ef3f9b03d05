/**
 * @module
 * What happens to a chat body before the handler reads it: it is parsed once, for the handler, from
 * where its bytes part from a recent body (a resent conversation is not decoded or parsed again), and
 * nesting too deep is a 400 before that part is parsed; a large body's heavy work (reading it,
 * counting its texts) is done in one lane, a step at a time with the event loop free in between, so
 * large bodies wait for each other and never for long in front of a small request.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  type ChatRequest,
  estimateMessage,
  estimateTools,
  MAX_JSON_DEPTH,
  markDepthChecked,
  readJsonText,
  readRequest,
  type TokenCounter,
  tokenizerFamilyOf,
  tooDeepMessage,
} from '../core/index.js';
import { cachedEstimator } from './cached-estimator.js';
import { type Exchange, type ProxyRuntime, sendProxyError } from './proxy-runtime.js';
import { parseRequestBody, rememberParsedBody } from './read-request-body.js';

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
 * Converts a large body and counts its texts ahead of the fit, pausing between steps. Whatever fails
 * here (not JSON, not a conversation) is left for the handler to answer as it always does.
 */
async function prepareLarge(body: Buffer, exchange: Exchange): Promise<void> {
  let value: unknown;
  try {
    value = parseRequestBody(body);
  } catch {
    return;
  }
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
 * Reads a body for the handler (a body that is not JSON is left for the handler to answer): `true`
 * when the body may go on, else it nests too deep and was answered 400 `json_too_deep`, naming the
 * byte where it went too deep. A resent conversation is read from where it changed, as bytes: the
 * history it repeats is compared, never decoded again.
 */
function readBody(exchange: Exchange, body: Buffer): boolean {
  const read = readJsonText(body);
  if (read.kind === 'value') {
    // Its text was scanned for depth, and the proxy never changes a body it read.
    markDepthChecked(read.value);
    rememberParsedBody(body, read.value);
  }
  if (read.kind !== 'too_deep') return true;
  sendProxyError(exchange, {
    status: 400,
    message: `${tooDeepMessage('the request body', MAX_JSON_DEPTH)} (byte ${read.excess.offset} is level ${MAX_JSON_DEPTH + 1})`,
    type: 'invalid_request_error',
    code: 'json_too_deep',
  });
  return false;
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
  if (body.length < LARGE_BODY_BYTES) return readBody(exchange, body);
  return runtime.largeBodies.run(async () => {
    if (exchange.signal.aborted) return false;
    await nextTurn();
    if (!readBody(exchange, body)) return false;
    await nextTurn();
    await prepareLarge(body, exchange).catch(() => undefined);
    return !exchange.signal.aborted;
  });
}

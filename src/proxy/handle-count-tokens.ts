/**
 * @module
 * The counting endpoints, answered for the request Spillway would send: Anthropic's
 * `POST /v1/messages/count_tokens` (Claude Code calls it to decide when to compact) and the
 * Responses API's `POST /v1/responses/input_tokens`. The body is fitted by the conversation's
 * driver, as the next send will be, and the fitted body is counted by the upstream's own endpoint
 * (an exact count); when the upstream has none, the answer is Spillway's count of the fitted body,
 * in the endpoint's shape, with `x-spillway-count` saying which count it is.
 */
import {
  type ChatRequest,
  ContextTruncatedError,
  type FitResult,
  type RequestFormat,
  writeRequest,
} from '../core/index.js';
import { forwardUnchanged } from './forward-unchanged.js';
import { prepare, readChatRequest, spillwayHeaders } from './handle-chat-request.js';
import { previousResponseId, SERVER_STATE_FIT } from './handle-responses-request.js';
import { type Exchange, type ProxyRuntime, upstreamJsonPost } from './proxy-runtime.js';
import { forwardedResponseHeaders, sendAndRead } from './upstream-request.js';

/** The count a counting endpoint answers: `input_tokens`, when its JSON has one. */
function inputTokensOf(text: string): number | undefined {
  try {
    const value = JSON.parse(text) as { input_tokens?: unknown };
    return typeof value.input_tokens === 'number' ? value.input_tokens : undefined;
  } catch {
    return undefined;
  }
}

/** Spillway's own answer, in the endpoint's shape. */
function estimateBody(format: RequestFormat, tokens: number): unknown {
  return format === 'anthropic'
    ? { input_tokens: tokens }
    : { object: 'response.input_tokens', input_tokens: tokens };
}

/** Asks the upstream's counting endpoint about the fitted body; `undefined` when it gives no count. */
async function upstreamCount(
  runtime: ProxyRuntime,
  exchange: Exchange,
  fitted: ChatRequest,
): Promise<{ status: number; text: string; headers: Record<string, string | string[]> } | undefined> {
  const body = Buffer.from(JSON.stringify(writeRequest(fitted)));
  const started = performance.now();
  try {
    const reply = await sendAndRead({ ...upstreamJsonPost(runtime, exchange, body), isStream: () => false });
    const text = (reply.body ?? Buffer.alloc(0)).toString('utf8');
    const status = reply.response.statusCode ?? 502;
    if (status >= 300 || inputTokensOf(text) === undefined) return undefined;
    return { status, text, headers: forwardedResponseHeaders(reply.response.headers) };
  } catch {
    return undefined;
  } finally {
    exchange.upstreamMs += performance.now() - started;
  }
}

/**
 * Handles `POST /v1/messages/count_tokens` (`format: 'anthropic'`) and
 * `POST /v1/responses/input_tokens` (`format: 'responses'`). A body Spillway cannot read, one that
 * continues a stored response, and one nothing can fit are forwarded unchanged.
 *
 * @example
 * await handleCountTokens({ runtime, exchange, body, format: 'anthropic' });
 */
export async function handleCountTokens({
  runtime,
  exchange,
  body,
  format,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  format: RequestFormat;
}): Promise<void> {
  if (format === 'responses' && previousResponseId(body) !== undefined) {
    await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': SERVER_STATE_FIT } });
    return;
  }
  const request = await readChatRequest({ runtime, exchange, body, format });
  if (request === undefined) return;
  const { driver } = await prepare(runtime, exchange, request);
  let fit: FitResult;
  try {
    fit = driver.fit(request);
  } catch (error) {
    if (!ContextTruncatedError.isInstance(error)) throw error;
    await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': 'unfittable' } });
    return;
  }
  if (exchange.signal.aborted) return;
  const headers = spillwayHeaders(fit, 'none');
  const counted = await upstreamCount(runtime, exchange, fit.request);
  if (exchange.signal.aborted) return;
  const text = counted?.text ?? JSON.stringify(estimateBody(format, fit.estimate));
  exchange.response.writeHead(counted?.status ?? 200, {
    ...(counted?.headers ?? { 'content-type': 'application/json' }),
    ...headers,
    'x-spillway-count': counted ? 'upstream' : fit.countSource,
    'content-length': String(Buffer.byteLength(text)),
  });
  exchange.response.end(text);
}

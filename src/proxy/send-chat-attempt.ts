/**
 * @module
 * One attempt at a chat request upstream: sent, and either passed on to the client (a reply, or an
 * error that is not an overflow) or, for an overflow the client has not seen any of yet, handed
 * back for recovery.
 */

import type { IncomingMessage } from 'node:http';
import { type OverflowInfo, SpillwayError } from '../core/index.js';
import {
  type Exchange,
  endStreamWithError,
  type ProxyRuntime,
  sendProxyError,
  streamStarted,
  upstreamJsonPost,
} from './proxy-runtime.js';
import { relayStream } from './relay-stream.js';
import { forwardedResponseHeaders, sendAndRead } from './upstream-request.js';
import { timeoutReply, type UpstreamTimeoutFacts, upstreamTimeoutOf } from './upstream-timeouts.js';

/** How an attempt ended. */
export type AttemptOutcome =
  /** The client has the upstream's answer (a reply, or an error that is no overflow). */
  | { kind: 'forwarded'; status: number; promptTokens?: number }
  /** The upstream rejected the request as too long; the client has seen nothing. */
  | { kind: 'overflow'; overflow: OverflowInfo; status: number; text: string }
  /** The upstream could not be reached, or its stream broke before any content. */
  | { kind: 'unreachable'; message: string }
  | { kind: 'aborted' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Prompt tokens a JSON reply reports (OpenAI `usage.prompt_tokens`; Anthropic input + cache; Gemini
 * `usageMetadata.promptTokenCount`, in the last chunk of a streamed JSON array).
 */
export function promptTokensOfReply(body: unknown): number | undefined {
  if (Array.isArray(body)) return promptTokensOfReply(body.at(-1));
  if (isRecord(body) && isRecord(body.usageMetadata)) {
    const count = body.usageMetadata.promptTokenCount;
    return typeof count === 'number' && count > 0 ? count : undefined;
  }
  if (!isRecord(body) || !isRecord(body.usage)) return undefined;
  const usage = body.usage;
  if (typeof usage.prompt_tokens === 'number') return usage.prompt_tokens;
  const count = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
  const total =
    count('input_tokens') + count('cache_creation_input_tokens') + count('cache_read_input_tokens');
  return total > 0 ? total : undefined;
}

/** A 200 whose JSON body is an error and no reply (some gateways answer overflows this way). */
function isErrorReply(body: unknown): boolean {
  return (
    isRecord(body) &&
    (isRecord(body.error) || body.type === 'error') &&
    body.choices === undefined &&
    body.content === undefined
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Inputs of {@link sendChatAttempt}. */
export interface SendChatAttemptOptions {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
  /** `x-spillway-*` headers for the client's response. */
  headers: Record<string, string>;
  /**
   * Whether an answer is an overflow, decided while it arrives (an overflow is held back from the
   * client for recovery, anything else relayed): the driver's classification, the only one.
   */
  classify: (status: number, text: string) => OverflowInfo;
}

/** How a relayed event stream ended, as an attempt's outcome. */
async function relayEvents(
  options: SendChatAttemptOptions,
  upstream: IncomingMessage,
  passed: Record<string, string | string[]>,
  classify: (status: number, text: string) => OverflowInfo,
): Promise<AttemptOutcome> {
  const { runtime, exchange } = options;
  const { response, signal } = exchange;
  const status = upstream.statusCode ?? 502;
  const outcome = await relayStream({
    upstream,
    response,
    signal,
    commit: () => response.writeHead(status, passed),
  });
  if (outcome.kind === 'aborted') return { kind: 'aborted' };
  if (outcome.kind === 'interrupted-before-content') {
    const timeout = upstreamTimeoutOf(outcome.cause);
    runtime.metrics.upstreamErrors.add({ reason: timeout ? 'timeout' : 'interrupted' });
    if (timeout) return answerTimeout(exchange, timeout, outcome.cause.message);
    return {
      kind: 'unreachable',
      message: `the upstream stream broke off before any content (${outcome.cause.message})`,
    };
  }
  if (outcome.kind === 'error-before-content') {
    const overflow = classify(status, outcome.text);
    if (overflow.kind !== 'none') return { kind: 'overflow', overflow, status, text: outcome.text };
    runtime.metrics.upstreamErrors.add({ reason: 'stream_error' });
    if (!response.headersSent) response.writeHead(status, passed);
    response.end(outcome.text);
    return { kind: 'forwarded', status };
  }
  if (outcome.errorAfterContent) runtime.metrics.upstreamErrors.add({ reason: 'stream_error' });
  if (outcome.interrupted)
    runtime.metrics.upstreamErrors.add({ reason: outcome.timedOut ? 'timeout' : 'interrupted' });
  return {
    kind: 'forwarded',
    status,
    ...(outcome.promptTokens === undefined ? {} : { promptTokens: outcome.promptTokens }),
  };
}

/** Answers 504 for an upstream timeout; the client has its answer, so the attempt counts as forwarded. */
function answerTimeout(exchange: Exchange, timeout: UpstreamTimeoutFacts, message: string): AttemptOutcome {
  sendProxyError(exchange, timeoutReply(timeout, message));
  return { kind: 'forwarded', status: 504 };
}

/**
 * Sends the fitted body upstream and relays the answer. Streams pass through chunk by chunk once
 * the first content arrives; an error event before that, or an error status, is classified, and an
 * overflow comes back to the caller unsent. An answer the upstream cut before the client saw any of
 * it is asked for again (see `sendAndRead`); a timeout is a 504 naming the setting that raises it.
 *
 * @example
 * const outcome = await sendChatAttempt({ runtime, exchange, body, headers, classify });
 * if (outcome.kind === 'overflow') recoverOverflow({ request, sent, overflow: outcome.overflow });
 */
export async function sendChatAttempt(options: SendChatAttemptOptions): Promise<AttemptOutcome> {
  const { runtime, exchange, body, headers, classify } = options;
  const { response, signal } = exchange;
  const started = performance.now();
  try {
    const reply = await sendAndRead({
      ...upstreamJsonPost(runtime, exchange, body, signal),
      isStream: (answer) =>
        (answer.statusCode ?? 502) < 300 &&
        String(answer.headers['content-type'] ?? '').includes('text/event-stream'),
    });
    const upstream = reply.response;
    const status = upstream.statusCode ?? 502;
    const passed = forwardedResponseHeaders(upstream.headers, { also: headers });
    if (reply.body === undefined) return await relayEvents(options, upstream, passed, classify);
    const bytes = reply.body;
    const text = bytes.toString('utf8');
    const json = parseJson(text);
    if (status >= 400 || isErrorReply(json)) {
      const overflow = classify(status, text);
      if (overflow.kind !== 'none') return { kind: 'overflow', overflow, status, text };
      runtime.metrics.upstreamErrors.add({
        reason: status >= 500 ? 'http_5xx' : status >= 400 ? 'http_4xx' : 'error_reply',
      });
    }
    if (signal.aborted) return { kind: 'aborted' };
    if (streamStarted(exchange)) {
      // An earlier attempt passed keep-alives on: this answer can only end the stream they began.
      endStreamWithError(exchange, text);
      return { kind: 'forwarded', status };
    }
    passed['content-length'] = String(bytes.length);
    response.writeHead(status, passed);
    response.end(bytes);
    const promptTokens = status < 300 ? promptTokensOfReply(json) : undefined;
    return { kind: 'forwarded', status, ...(promptTokens === undefined ? {} : { promptTokens }) };
  } catch (error) {
    if (signal.aborted) return { kind: 'aborted' };
    const timeout = upstreamTimeoutOf(error);
    if (timeout) {
      runtime.metrics.upstreamErrors.add({ reason: 'timeout' });
      return answerTimeout(exchange, timeout, (error as Error).message);
    }
    if (SpillwayError.isInstance(error) && error.code === 'provider_error') {
      runtime.metrics.upstreamErrors.add({ reason: 'unreachable' });
      return { kind: 'unreachable', message: error.message };
    }
    runtime.metrics.upstreamErrors.add({ reason: 'interrupted' });
    return { kind: 'unreachable', message: `the upstream connection failed: ${(error as Error).message}` };
  } finally {
    exchange.upstreamMs += performance.now() - started;
  }
}

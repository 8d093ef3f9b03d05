/**
 * @module
 * `POST /v1/responses`, the OpenAI Responses API, through the proxy. A request that carries its
 * whole conversation in `input` (Codex CLI sends `store: false` and every item, every turn) goes
 * through the conversation's driver exactly as a chat request does: fitted, sent, recovered once.
 *
 * A request that continues a stored response (`previous_response_id`) cannot be fitted: the items
 * the server holds never pass through the proxy, so neither their size nor a cut of them is
 * Spillway's to know or make. It is sent unchanged, and its answer says so in
 * `x-spillway-fit: server-state` (with a log line); `truncation: "auto"` is the server's own way to
 * drop the oldest items of such a conversation.
 */
import { forwardUnchanged } from './forward-unchanged.js';
import { handleChatRequest } from './handle-chat-request.js';
import type { Exchange, ProxyRuntime } from './proxy-runtime.js';
import { parseRequestBody } from './read-request-body.js';

/** The `x-spillway-fit` value of a request whose history the upstream holds. */
export const SERVER_STATE_FIT = 'server-state; previous_response_id';

/** The `previous_response_id` of a body, when it is JSON that names one. */
export function previousResponseId(body: Buffer): string | undefined {
  let value: unknown;
  try {
    value = parseRequestBody(body);
  } catch {
    return undefined;
  }
  const id =
    typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>).previous_response_id
      : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Handles `POST /v1/responses`: fitted through the driver, or sent unchanged with
 * {@link SERVER_STATE_FIT} when it continues a stored response.
 *
 * @example
 * await handleResponsesRequest({ runtime, exchange, body });
 */
export async function handleResponsesRequest({
  runtime,
  exchange,
  body,
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body: Buffer;
}): Promise<void> {
  const previous = previousResponseId(body);
  if (previous === undefined) {
    await handleChatRequest({ runtime, exchange, body, format: 'responses' });
    return;
  }
  runtime.metrics.passthroughs.add({ api: 'responses', reason: 'previous_response_id' });
  runtime.log({ level: 'info', event: 'passthrough', api: 'responses', reason: 'previous_response_id' });
  await forwardUnchanged({ runtime, exchange, body, headers: { 'x-spillway-fit': SERVER_STATE_FIT } });
}

/**
 * @module
 * Requests the proxy does not fit (`/v1/models`, embeddings, files, anything else, and chat bodies
 * Spillway cannot read) go upstream as they came, and their answers come back byte for byte,
 * streamed.
 */
import { pipeline } from 'node:stream/promises';
import { SpillwayError } from '../core/index.js';
import { type Exchange, type ProxyRuntime, sendProxyError, upstreamUrl } from './proxy-runtime.js';
import { forwardedRequestHeaders, forwardedResponseHeaders, sendUpstream } from './upstream-request.js';
import { timeoutReply, upstreamTimeoutOf } from './upstream-timeouts.js';

/**
 * Forwards the client's request unchanged and pipes the upstream's answer back; an unreachable
 * upstream is a 502 naming the cause, one that does not answer in time a 504 naming the timeout.
 *
 * @example
 * await forwardUnchanged({ runtime, exchange, body });
 */
export async function forwardUnchanged({
  runtime,
  exchange,
  body,
  headers = {},
}: {
  runtime: ProxyRuntime;
  exchange: Exchange;
  body?: Buffer;
  /** Extra headers for the client's response. */
  headers?: Record<string, string>;
}): Promise<void> {
  const { request, response, signal } = exchange;
  const started = performance.now();
  try {
    const method = request.method ?? 'GET';
    const hasBody = body !== undefined && !(body.length === 0 && (method === 'GET' || method === 'HEAD'));
    const upstream = await sendUpstream({
      url: upstreamUrl(runtime, exchange.path),
      method,
      headers: forwardedRequestHeaders(request.headers, hasBody ? { bodyBytes: body.length } : {}),
      ...(hasBody ? { body } : {}),
      signal,
      agents: runtime.agents,
    });
    const status = upstream.statusCode ?? 502;
    if (status >= 500) runtime.metrics.upstreamErrors.add({ reason: 'http_5xx' });
    response.writeHead(
      status,
      forwardedResponseHeaders(upstream.headers, { keepLength: true, also: headers }),
    );
    await pipeline(upstream, response);
  } catch (error) {
    if (signal.aborted) return;
    const timeout = upstreamTimeoutOf(error);
    if (timeout) {
      runtime.metrics.upstreamErrors.add({ reason: 'timeout' });
      if (response.headersSent) response.destroy();
      else sendProxyError(exchange, timeoutReply(timeout, (error as Error).message));
      return;
    }
    if (SpillwayError.isInstance(error) && error.code === 'provider_error') {
      runtime.metrics.upstreamErrors.add({ reason: 'unreachable' });
      sendProxyError(exchange, {
        status: 502,
        message: error.message,
        type: 'upstream_error',
        code: 'upstream_unreachable',
      });
      return;
    }
    runtime.metrics.upstreamErrors.add({ reason: 'interrupted' });
    if (!response.headersSent)
      sendProxyError(exchange, {
        status: 502,
        message: `the upstream connection failed: ${(error as Error).message}`,
        type: 'upstream_error',
        code: 'upstream_unreachable',
      });
    else response.destroy();
  } finally {
    exchange.upstreamMs += performance.now() - started;
  }
}

/**
 * @module
 * Requests to the upstream over `node:http(s)`: raw bytes both ways (no re-encoding, no automatic
 * decompression), keep-alive sockets, and an `AbortSignal` that tears the upstream request down when
 * the client goes away.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { SpillwayError } from '../core/index.js';
import { ProviderError, withRetries } from '../providers/index.js';
import {
  armIdleTimeout,
  armRequestTimeouts,
  DEFAULT_UPSTREAM_TIMEOUTS,
  type UpstreamTimeouts,
  upstreamTimeoutOf,
} from './upstream-timeouts.js';

/** Request headers that belong to one hop and are never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);

/**
 * Copies `headers` into `out` by assignment, the hop-by-hop ones left out (but `keep`). Objects are
 * built this way rather than spread: spreading an object V8 did not make from a literal (Node's
 * header objects, one built here) into a literal with more keys costs microseconds per request.
 */
function copyHeaders(
  out: Record<string, string | string[]>,
  headers: IncomingHttpHeaders,
  keep?: string,
): Record<string, string | string[]> {
  // `for…in` rather than `Object.entries`: no array of pairs per request (Node's header objects
  // have a null prototype, so nothing is inherited).
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || (HOP_BY_HOP.has(name) && name !== keep)) continue;
    out[name] = value;
  }
  return out;
}

/** Sets each of `also` on `out` (after what is there: the later value wins). */
function setAll(out: Record<string, string | string[]>, also: Record<string, string> | undefined): void {
  if (also === undefined) return;
  for (const name in also) out[name] = also[name] as string;
}

/**
 * The client's headers as forwarded upstream; with `identity`, the reply is asked for uncompressed;
 * `also` is set last (its values win).
 */
export function forwardedRequestHeaders(
  headers: IncomingHttpHeaders,
  {
    identity = false,
    bodyBytes,
    also,
  }: { identity?: boolean; bodyBytes?: number; also?: Record<string, string> } = {},
): Record<string, string | string[]> {
  const out = copyHeaders({}, headers);
  if (identity) out['accept-encoding'] = 'identity';
  if (bodyBytes !== undefined) out['content-length'] = String(bodyBytes);
  setAll(out, also);
  return out;
}

/**
 * The upstream's response headers as sent on to the client (without hop-by-hop and length, unless
 * `keepLength`); `also` is set last (its values win).
 */
export function forwardedResponseHeaders(
  headers: IncomingHttpHeaders,
  { keepLength = false, also }: { keepLength?: boolean; also?: Record<string, string> } = {},
): Record<string, string | string[]> {
  const out = copyHeaders({}, headers, keepLength ? 'content-length' : undefined);
  setAll(out, also);
  return out;
}

/** Keep-alive agents for one proxy, and how long it waits on the upstream; destroyed when it closes. */
export interface UpstreamAgents {
  http: HttpAgent;
  https: HttpsAgent;
  timeouts: UpstreamTimeouts;
  destroy(): void;
}

export function createUpstreamAgents({
  timeouts = DEFAULT_UPSTREAM_TIMEOUTS,
}: {
  timeouts?: UpstreamTimeouts;
} = {}): UpstreamAgents {
  const http = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  const https = new HttpsAgent({ keepAlive: true, maxSockets: 256 });
  return {
    http,
    https,
    timeouts,
    destroy() {
      http.destroy();
      https.destroy();
    },
  };
}

/**
 * Destroys a request, and the response it is reading, when `signal` aborts, until the request
 * closes. One listener, where handing `signal` to `http.request` also watches the request's end
 * (its `finished` machinery): that cost tens of microseconds a request.
 */
function cancelOnAbort(outgoing: ClientRequest, signal: AbortSignal): void {
  const onAbort = (): void => {
    outgoing.destroy(
      Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }),
    );
  };
  signal.addEventListener('abort', onAbort, { once: true });
  outgoing.once('close', () => signal.removeEventListener('abort', onAbort));
}

/** What `http.request` needs of an upstream URL. */
interface UrlTarget {
  protocol: string;
  hostname: string;
  port: number | string | undefined;
  path: string;
  auth: string | undefined;
}

/** The target of each upstream URL (the proxy keeps one URL object per path). */
const URL_TARGETS = new WeakMap<URL, UrlTarget>();

/**
 * `url` as `http.request` takes it, made once per URL object rather than by Node on every request
 * (Node's own conversion, `urlToHttpOptions`, so credentials in the URL become `auth` as they would).
 */
function urlTarget(url: URL): UrlTarget {
  let target = URL_TARGETS.get(url);
  if (target === undefined) {
    const options = urlToHttpOptions(url);
    target = {
      protocol: options.protocol ?? url.protocol,
      hostname: options.hostname ?? url.hostname,
      port: options.port ?? undefined,
      path: options.path ?? `${url.pathname}${url.search}`,
      auth: options.auth ?? undefined,
    };
    URL_TARGETS.set(url, target);
  }
  return target;
}

/** Inputs of {@link sendUpstream}. */
export interface SendUpstreamOptions {
  url: URL;
  method: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  signal?: AbortSignal;
  agents: UpstreamAgents;
}

/**
 * Sends one request upstream and resolves with the response as soon as its headers arrive (the body
 * is the caller's to read). Rejects with `provider_error` (`data.failure: 'connection'`) when the
 * upstream cannot be reached, naming its origin and the cause (`data.reusedSocket` when a kept-alive
 * connection the upstream had closed was reused), with `provider_error` (`data.failure: 'timeout'`)
 * when one of `agents.timeouts` ran out, and with `aborted` on abort. The idle timeout stays armed
 * while the caller reads the body: a stalled body is destroyed with the timeout's error.
 */
export function sendUpstream({
  url,
  method,
  headers,
  body,
  signal,
  agents,
}: SendUpstreamOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new SpillwayError('aborted', 'the client went away before the request was sent'));
      return;
    }
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const target = urlTarget(url);
    // A literal of fixed shape: spreading Node's options object (it has a null prototype) into one
    // took microseconds per request.
    const outgoing = send({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      path: target.path,
      auth: target.auth,
      method,
      headers,
      agent: secure ? agents.https : agents.http,
    });
    if (signal) cancelOnAbort(outgoing, signal);
    armRequestTimeouts(outgoing, agents.timeouts, url.origin);
    outgoing.once('response', (response) => {
      armIdleTimeout(response, agents.timeouts, url.origin);
      resolve(response);
    });
    outgoing.once('error', (error: NodeJS.ErrnoException) => {
      if (upstreamTimeoutOf(error)) {
        reject(error);
        return;
      }
      if (signal?.aborted) {
        reject(
          new SpillwayError('aborted', 'the client went away; the upstream request was cancelled', {
            cause: error,
          }),
        );
        return;
      }
      reject(
        new SpillwayError(
          'provider_error',
          `cannot reach the upstream ${url.origin}: ${error.code ?? error.message}`,
          {
            cause: error,
            data: {
              failure: 'connection',
              cause: error.code ?? error.message,
              reusedSocket: outgoing.reusedSocket,
            },
            retryable: true,
          },
        ),
      );
    });
    outgoing.end(body);
  });
}

/**
 * Reads a whole response body, at most `maxBytes` of it (the rest is discarded). Rejects with the
 * response's error (a timeout's, a reset), or `ERR_STREAM_PREMATURE_CLOSE` when it closes before its
 * end. Read with listeners, not an async iterator: the iterator's machinery costs more than reading
 * the few kilobytes of a reply.
 */
export function readResponseBody(response: IncomingMessage, maxBytes = 64 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer): void => {
      if (bytes + chunk.length <= maxBytes) chunks.push(chunk);
      bytes += chunk.length;
    };
    const settle = (): void => {
      response.off('data', onData);
      response.off('end', onEnd);
      response.off('error', onError);
      response.off('close', onClose);
    };
    const onEnd = (): void => {
      settle();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    };
    const onError = (error: Error): void => {
      settle();
      reject(error);
    };
    const onClose = (): void => {
      settle();
      reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    if (response.readableEnded) {
      resolve(Buffer.alloc(0));
      return;
    }
    if (response.destroyed) {
      onClose();
      return;
    }
    response.on('data', onData);
    response.once('end', onEnd);
    response.once('error', onError);
    response.once('close', onClose);
  });
}

/**
 * How many times an exchange the upstream cut is repeated: 2, as the provider clients retry
 * connection failures (the official SDKs' default).
 */
export const UPSTREAM_RETRIES = 2;

/** What {@link sendAndRead} got: the response, and its whole body unless it is a stream. */
export interface UpstreamReply {
  response: IncomingMessage;
  body?: Buffer;
}

/**
 * Sends a request and reads the answer's body (unless `isStream` says to leave it to the caller),
 * repeating the exchange when the upstream cut it before the client saw anything: a body broken off
 * mid-way, or a kept-alive connection the upstream had closed. Refused connections, timeouts and
 * aborts are not repeated. Waits between tries as the provider clients do.
 *
 * @example
 * const { response, body } = await sendAndRead({ url, method: 'POST', headers, body, agents, isStream });
 */
export function sendAndRead(
  options: SendUpstreamOptions & { isStream: (response: IncomingMessage) => boolean },
): Promise<UpstreamReply> {
  const origin = options.url.origin;
  const attempt = async (): Promise<UpstreamReply> => {
    let response: IncomingMessage;
    try {
      response = await sendUpstream(options);
    } catch (error) {
      if (SpillwayError.isInstance(error) && error.data.reusedSocket === true && !options.signal?.aborted)
        throw new ProviderError(`${error.message} (a kept-alive connection the upstream had closed)`, {
          failure: 'connection',
        });
      throw error;
    }
    if (options.isStream(response)) return { response };
    try {
      return { response, body: await readResponseBody(response) };
    } catch (error) {
      if (upstreamTimeoutOf(error) || options.signal?.aborted) throw error;
      throw new ProviderError(
        `the upstream ${origin} broke off its answer mid-body (${(error as Error).message})`,
        { failure: 'connection', status: response.statusCode },
        { cause: error },
      );
    }
  };
  return withRetries(attempt, {
    maxRetries: UPSTREAM_RETRIES,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

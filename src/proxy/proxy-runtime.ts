/**
 * @module
 * What every request handler of one proxy shares, and what one exchange (a client request and its
 * response) carries through the handlers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LruCache, type RequestFormat } from '../core/index.js';
import type { DiscoveryCache } from '../models/index.js';
import type { ProxyConfig } from './proxy-config.js';
import { type ProxyErrorInfo, proxyErrorBody } from './proxy-error-body.js';
import type { ProxyMetrics } from './proxy-metrics.js';
import type { ProxyState } from './proxy-state.js';
import { redactSecrets } from './redact-secrets.js';
import {
  forwardedRequestHeaders,
  type SendUpstreamOptions,
  type UpstreamAgents,
} from './upstream-request.js';
import type { WorkLane } from './work-lane.js';

/** One line of the proxy's log. Never carries headers, bodies or credentials. */
export interface ProxyLogEntry {
  level: 'info' | 'warn' | 'error';
  /** `listening`, `request`, `recovery`, `upstream_error`, `store_error`, `internal_error`, … */
  event: string;
  message?: string;
  [field: string]: unknown;
}

/** The parts of a running proxy its handlers use. */
export interface ProxyRuntime {
  /** The upstream's server root: origin plus any base path, without a trailing `/v1`. */
  upstreamRoot: string;
  upstreamFormat: RequestFormat;
  state: ProxyState;
  metrics: ProxyMetrics;
  config: ProxyConfig | undefined;
  agents: UpstreamAgents;
  discovery: DiscoveryCache;
  maxBodyBytes: number;
  /** Where large bodies are parsed and counted, one at a time (see `screenChatBody`). */
  largeBodies: WorkLane;
  /** For discovery probes (tests pass their own). */
  fetch?: typeof fetch;
  /** A secret the proxy proves it holds on `GET /healthz` (see `ownerProof`), never sends. */
  ownerSecret?: string;
  /** Told of every request as it arrives, before its body is read. */
  onRequest?: (arrival: { method: string; pathname: string }) => void;
  log(entry: ProxyLogEntry): void;
}

/** One client request in flight. */
export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  /** Path and query as the client sent them. */
  path: string;
  /** `performance.now()` when the request arrived. */
  started: number;
  /** Milliseconds spent waiting on the upstream, summed over attempts. */
  upstreamMs: number;
  /** The client's credentials, scrubbed from every text the proxy writes. */
  readonly secrets: string[];
  /** A hash of the client's credential headers (see `credentialIdentity`), when it sent any. */
  credential?: string | undefined;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The wire format the client speaks on this route (for the shape of errors). */
  format: RequestFormat;
}

/**
 * Upstream URLs of recent client paths, per upstream root: most requests go to a handful of paths.
 * The 256 used last are kept.
 */
const UPSTREAM_URLS = new LruCache<string, URL>({ maxEntries: 256 });

/** The upstream URL for a client path (the same object for the same path: read it, never change it). */
export function upstreamUrl(runtime: ProxyRuntime, path: string): URL {
  const text = `${runtime.upstreamRoot}${path}`;
  let url = UPSTREAM_URLS.get(text);
  if (url === undefined) {
    url = new URL(text);
    UPSTREAM_URLS.set(text, url);
  }
  return url;
}

const JSON_CONTENT = { 'content-type': 'application/json' };

/**
 * A JSON body POSTed to the exchange's path upstream, with the client's own headers (credentials,
 * `anthropic-beta`, …) and the answer asked for uncompressed.
 */
export function upstreamJsonPost(
  runtime: ProxyRuntime,
  exchange: Exchange,
  body: Buffer,
  signal: AbortSignal = exchange.signal,
): SendUpstreamOptions {
  return {
    url: upstreamUrl(runtime, exchange.path),
    method: 'POST',
    headers: forwardedRequestHeaders(exchange.request.headers, {
      identity: true,
      bodyBytes: body.length,
      also: JSON_CONTENT,
    }),
    body,
    signal,
    agents: runtime.agents,
  };
}

/**
 * Ends an event stream whose headers are already out (keep-alives were passed on) with an error
 * event carrying `text`, the JSON of an error body: the client reads it as the upstream's own stream
 * errors. Anthropic's streams name the event `error`; OpenAI's carry `{"error":…}` as data.
 */
export function endStreamWithError(exchange: Exchange, text: string): void {
  const { response } = exchange;
  const json = text.trim().replace(/\r?\n/g, ' ');
  response.end(`${exchange.format === 'anthropic' ? 'event: error\n' : ''}data: ${json}\n\n`);
}

/** Whether the client has the headers of an event stream and no end yet (keep-alives went out). */
export function streamStarted(exchange: Exchange): boolean {
  const { response } = exchange;
  return (
    response.headersSent &&
    !response.writableEnded &&
    !response.destroyed &&
    String(response.getHeader('content-type') ?? '').includes('text/event-stream')
  );
}

/**
 * Answers with a proxy error in the route's format; extra headers (x-spillway-*) ride along. When an
 * event stream has begun (keep-alives were passed on), the error ends it as an error event.
 */
export function sendProxyError(
  exchange: Exchange,
  error: ProxyErrorInfo,
  headers: Record<string, string> = {},
): void {
  const { response } = exchange;
  if (streamStarted(exchange)) {
    endStreamWithError(
      exchange,
      proxyErrorBody({ ...error, message: redactSecrets(error.message, exchange.secrets) }, exchange.format),
    );
    return;
  }
  if (response.headersSent || response.destroyed) {
    response.destroy();
    return;
  }
  const text = proxyErrorBody(
    { ...error, message: redactSecrets(error.message, exchange.secrets) },
    exchange.format,
  );
  response.writeHead(error.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

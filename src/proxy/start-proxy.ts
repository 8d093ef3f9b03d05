/**
 * @module
 * `startProxy`: an OpenAI-compatible (Chat Completions and Responses) and Anthropic Messages HTTP
 * proxy that fits every chat request to the upstream model's window before it goes upstream.
 */
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { type RequestFormat, SpillwayError } from '../core/index.js';
import { DiscoveryCache, serverRoot } from '../models/index.js';
import { openProxyState } from './open-proxy-state.js';
import { openProxyStore } from './open-proxy-store.js';
import type { ProxyConfig } from './proxy-config.js';
import { ProxyMetrics } from './proxy-metrics.js';
import type { ProxyLogEntry, ProxyRuntime } from './proxy-runtime.js';
import { upstreamScope } from './proxy-state.js';
import type { ProxyStore } from './proxy-store.js';
import { DEFAULT_MAX_BODY_BYTES } from './read-request-body.js';
import { exchangeListener } from './serve-exchange.js';
import { FITTED_APIS, UNFITTED_APIS } from './unfitted-apis.js';
import { createUpstreamAgents } from './upstream-request.js';
import { DEFAULT_UPSTREAM_TIMEOUTS, TIMEOUT_SETTINGS, type UpstreamTimeouts } from './upstream-timeouts.js';
import { WorkLane } from './work-lane.js';

/** The port `spillway serve` listens on unless told otherwise. */
export const DEFAULT_PROXY_PORT = 8421;

/** Options of {@link startProxy}. */
export interface ProxyOptions {
  /** The upstream server: `http://host:port`, with or without a trailing `/v1`, any base path kept. */
  upstream: string;
  /** Default 8421; 0 picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /**
   * The upstream's own format, for its limits (`anthropic`: the Anthropic catalog). `/v1/messages`
   * is fitted as Anthropic Messages in either case. Default `openai`.
   */
  upstreamFormat?: RequestFormat;
  /** A store, or a spec for {@link openProxyStore} (`memory`, `sqlite[:PATH]`, `redis://…`). Default `memory`. */
  store?: ProxyStore | string;
  /** Limits, recovery settings and overflow rows (see `parseProxyConfig`). */
  config?: ProxyConfig;
  /** Request bodies over this many bytes are answered 413. Default the config's, else 32 MiB. */
  maxBodyBytes?: number;
  /** Waits on the upstream, over the config's and the defaults (`DEFAULT_UPSTREAM_TIMEOUTS`). */
  timeouts?: Partial<UpstreamTimeouts>;
  /** The store's circuit breaker: failures in a row that open it, how long until it tries again. */
  storeBreaker?: { failuresToOpen?: number; retryAfterMs?: number };
  /** Receives log entries (never headers, bodies or credentials). */
  onLog?: (entry: ProxyLogEntry) => void;
  /** The `fetch` discovery probes use (default the global one). */
  fetch?: typeof fetch;
  /**
   * A secret the proxy proves it holds without sending it: `GET /healthz` with
   * `x-spillway-challenge: NONCE` is answered with `x-spillway-proof` (see `ownerProof`). `spillway
   * wrap` reuses only a proxy that proves it holds its secret.
   */
  ownerSecret?: string;
  /** Told of every request as it arrives (method and path, never the query, headers or body). */
  onRequest?: (arrival: { method: string; pathname: string }) => void;
}

/** A running proxy. */
export interface RunningProxy {
  /** `http://HOST:PORT`; clients use `${url}/v1` as their base URL. */
  url: string;
  port: number;
  store: ProxyStore;
  metrics: ProxyMetrics;
  /** Stops listening, ends open connections, and closes the store if the proxy opened it. */
  close(): Promise<void>;
}

/** The waits on the upstream: the options' over the config's over the defaults, each checked. */
function resolveTimeouts(
  config: ProxyConfig | undefined,
  given: Partial<UpstreamTimeouts> = {},
): UpstreamTimeouts {
  const fromConfig: Partial<UpstreamTimeouts> = {
    ...(config?.connectTimeoutMs === undefined ? {} : { connectMs: config.connectTimeoutMs }),
    ...(config?.firstByteTimeoutMs === undefined ? {} : { firstByteMs: config.firstByteTimeoutMs }),
    ...(config?.idleTimeoutMs === undefined ? {} : { idleMs: config.idleTimeoutMs }),
  };
  const timeouts = { ...DEFAULT_UPSTREAM_TIMEOUTS, ...fromConfig, ...given };
  for (const [name, setting] of Object.entries(TIMEOUT_SETTINGS)) {
    const value = timeouts[setting.field];
    if (!Number.isInteger(value) || value <= 0)
      throw new SpillwayError(
        'invalid_config',
        `the ${name} timeout must be a positive number of milliseconds (${setting.flag}), got ${value}`,
      );
  }
  return timeouts;
}

/**
 * Starts the proxy. Every `POST /v1/chat/completions`, `POST /v1/responses` and `POST /v1/messages`
 * is fitted to the upstream model's window and sent (the counting endpoints answer for the fitted
 * request); Gemini and the other APIs of `UNFITTED_APIS` pass through with
 * `x-spillway-fit: passthrough; api=…`; an upstream overflow is
 * recovered and retried once; what cannot fit is answered 400 `context_length_exceeded`. Every other
 * path is forwarded unchanged. Responses carry `x-spillway-estimate`, `x-spillway-budget`,
 * `x-spillway-pruned-turns` and `x-spillway-recovery`; `GET /healthz` and `GET /metrics` report.
 *
 * @example
 * import OpenAI from 'openai';
 * import { startProxy } from 'spillway/proxy';
 *
 * const proxy = await startProxy({ upstream: 'http://localhost:8000', port: 0 });
 * const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: process.env.API_KEY });
 * await client.chat.completions.create({ model: 'glm5.2', messages, max_tokens: 96_000 });
 * await proxy.close();
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const { port = DEFAULT_PROXY_PORT, host = '127.0.0.1', upstreamFormat = 'openai', config } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new SpillwayError('invalid_config', `port must be an integer in 0…65535, got ${port}`);
  const upstreamRoot = serverRoot(options.upstream);
  const maxBodyBytes = options.maxBodyBytes ?? config?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0)
    throw new SpillwayError('invalid_config', `maxBodyBytes must be a positive integer, got ${maxBodyBytes}`);
  const ownsStore = typeof options.store !== 'object';
  const store = typeof options.store === 'object' ? options.store : openProxyStore(options.store ?? 'memory');
  const metrics = new ProxyMetrics();
  const log = options.onLog ?? (() => undefined);
  const { state, markUnreachable } = openProxyState({
    store,
    scope: upstreamScope(upstreamRoot),
    metrics,
    log,
    ...(options.storeBreaker ? { breaker: options.storeBreaker } : {}),
  });
  if (store.ready) await store.ready().catch(markUnreachable);
  const runtime: ProxyRuntime = {
    upstreamRoot,
    upstreamFormat,
    state,
    metrics,
    config,
    agents: createUpstreamAgents({ timeouts: resolveTimeouts(config, options.timeouts) }),
    discovery: new DiscoveryCache(),
    maxBodyBytes,
    largeBodies: new WorkLane(),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.ownerSecret ? { ownerSecret: options.ownerSecret } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    log,
  };

  const server = createServer(exchangeListener(runtime));
  // A client that sends a whole request and then half-closes its side (shutdown(SHUT_WR)) still
  // gets its answer: by default Node ends the connection on the client's FIN and the answer is lost.
  // The property is undocumented but read by Node's http.Server since 0.x (`socketOnEnd`). A
  // client that went away for good is then noticed at the first write that fails.
  (server as typeof server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new SpillwayError('invalid_config', `cannot listen on ${host}:${port}: ${error.message}`, {
          cause: error,
        }),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  log({ level: 'info', event: 'listening', url, upstream: upstreamRoot, store: store.kind });
  log({
    level: 'info',
    event: 'apis',
    message:
      'requests to the passed-through APIs and Responses requests with previous_response_id go upstream unfitted (x-spillway-fit says so on each answer)',
    fitted: [...FITTED_APIS],
    passed_through: UNFITTED_APIS.map((api) => api.description),
  });
  let closing: Promise<void> | undefined;
  return {
    url,
    port: boundPort,
    store,
    metrics,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
          for (const socket of sockets) socket.destroy();
        });
        runtime.agents.destroy();
        if (ownsStore) await store.close();
      })();
      return closing;
    },
  };
}

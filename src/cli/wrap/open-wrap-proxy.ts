/**
 * @module
 * The proxy a wrapped agent talks to. By default wrap starts its own, on a free port, holding a
 * secret made for this run. With `--port N` it first asks the listener on N to prove it holds the
 * user's shared secret (an HMAC of a fresh challenge, see `ownerProof`) and reuses it only then, and
 * only when it sends to the run's upstream in the run's format; a listener that cannot prove it is
 * never sent anything else, let alone the agent's key.
 */
import { randomBytes } from 'node:crypto';
import { serverRoot } from '../../models/index.js';
import {
  checkOwnerProof,
  OWNER_CHALLENGE_HEADER,
  OWNER_PROOF_HEADER,
  type ProxyLogEntry,
  type RunningProxy,
  startProxy,
} from '../../proxy/index.js';
import type { ProxyConfig } from '../../proxy/proxy-config.js';
import { newSecret } from './shared-secret.js';

/** How long a listener has to answer the challenge. */
const CHALLENGE_TIMEOUT_MS = 2_000;

/** The proxy a run uses. */
export interface WrapProxy {
  url: string;
  /** The proxy this run started (stopped when the agent exits); absent when one was reused. */
  own?: RunningProxy;
  /** How many requests have reached the proxy since the run began. */
  arrivals(): Promise<number>;
  close(): Promise<void>;
}

/** Options of {@link openWrapProxy}. */
export interface OpenWrapProxyOptions {
  upstream: string;
  host: string;
  upstreamFormat: 'openai' | 'anthropic';
  store: string;
  config?: ProxyConfig;
  /** A port to look for a running proxy on, one that proves it holds `sharedSecret`. */
  reusePort?: number;
  /** The user's shared secret, when there is one (see `readSharedSecret`). */
  sharedSecret?: string;
  onLog(entry: ProxyLogEntry): void;
  onRequest?: (arrival: { method: string; pathname: string }) => void;
}

function hostUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** What a proxy that proved the secret says of itself on `/healthz`. */
interface ProvenProxy {
  upstream?: string;
  upstreamFormat?: string;
}

/**
 * The listener at `url`, when it proves it holds `secret` for a fresh challenge, with the upstream
 * and format its `/healthz` names; `undefined` when it does not prove it. Only the challenge is
 * sent: no credential, no body.
 */
export async function provenProxy(url: string, secret: string): Promise<ProvenProxy | undefined> {
  const challenge = randomBytes(24).toString('base64url');
  try {
    const response = await fetch(`${url}/healthz`, {
      headers: { [OWNER_CHALLENGE_HEADER]: challenge },
      signal: AbortSignal.timeout(CHALLENGE_TIMEOUT_MS),
      redirect: 'error',
    });
    if (!checkOwnerProof(secret, challenge, response.headers.get(OWNER_PROOF_HEADER) ?? undefined)) {
      await response.body?.cancel();
      return undefined;
    }
    const health = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const field = (name: string) =>
      typeof health?.[name] === 'string' ? (health[name] as string) : undefined;
    const upstream = field('upstream');
    const upstreamFormat = field('upstream_format');
    return { ...(upstream ? { upstream } : {}), ...(upstreamFormat ? { upstreamFormat } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Why a proxy that proved the secret is not this run's (another upstream, another format), or
 * `undefined` when it is.
 */
function notThisRuns(proven: ProvenProxy, options: OpenWrapProxyOptions): string | undefined {
  const upstream = serverRoot(options.upstream);
  if (proven.upstream !== upstream)
    return `sends to ${proven.upstream ?? 'an upstream it does not name'}, not to this run's ${upstream}`;
  if (proven.upstreamFormat !== undefined && proven.upstreamFormat !== options.upstreamFormat)
    return `speaks ${proven.upstreamFormat} to its upstream, not ${options.upstreamFormat}`;
  return undefined;
}

/** The sum of `spillway_proxy_requests_total` in a `/metrics` text. */
function requestsTotal(text: string): number {
  let total = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('spillway_proxy_requests_total')) total += Number(line.split(' ').at(-1)) || 0;
  return total;
}

async function reusedProxy(url: string): Promise<WrapProxy> {
  const read = async (): Promise<number> => {
    try {
      const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(CHALLENGE_TIMEOUT_MS) });
      return requestsTotal(await response.text());
    } catch {
      return 0;
    }
  };
  // Its own /metrics request counts once it is answered: start from the count after it.
  const start = (await read()) + 1;
  return { url, arrivals: async () => Math.max(0, (await read()) - start), close: async () => undefined };
}

/**
 * Finds or starts the run's proxy.
 *
 * @example
 * const proxy = await openWrapProxy({ upstream, host: '127.0.0.1', upstreamFormat: 'openai', store: 'memory', onLog() {} });
 */
export async function openWrapProxy(options: OpenWrapProxyOptions): Promise<WrapProxy> {
  const { reusePort, sharedSecret, host } = options;
  if (reusePort !== undefined) {
    const url = hostUrl(host, reusePort);
    const proven = sharedSecret === undefined ? undefined : await provenProxy(url, sharedSecret);
    const other = proven && notThisRuns(proven, options);
    if (proven && other === undefined) return reusedProxy(url);
    options.onLog({
      level: 'warn',
      event: 'wrap_reuse_refused',
      port: reusePort,
      message:
        sharedSecret === undefined
          ? `no shared secret file, so nothing on port ${reusePort} is reused; a proxy of this run's own is started on a free port`
          : other !== undefined
            ? `the proxy on port ${reusePort} ${other}; a proxy of this run's own is started on a free port and nothing was sent to that port`
            : `nothing on port ${reusePort} proved it holds the shared secret; a proxy of this run's own is started on a free port and nothing was sent to that port`,
    });
  }
  let arrived = 0;
  const own = await startProxy({
    upstream: options.upstream,
    port: 0,
    host,
    upstreamFormat: options.upstreamFormat,
    store: options.store,
    ...(options.config ? { config: options.config } : {}),
    ownerSecret: sharedSecret ?? newSecret(),
    onLog: options.onLog,
    onRequest(arrival) {
      arrived++;
      options.onRequest?.(arrival);
    },
  });
  return { url: own.url, own, arrivals: async () => arrived, close: () => own.close() };
}

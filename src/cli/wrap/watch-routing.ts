/**
 * @module
 * Whether a wrapped agent really talks through the proxy. While it runs, its process tree's TCP
 * connections are read a few times a second (Linux, see `agentConnections`): a connection to the
 * upstream itself is a bypass, reported at once; a first connection elsewhere off this machine with
 * no request at the proxy within {@link BYPASS_GRACE_MS} is reported too. Where connections cannot
 * be read, no request within {@link BYPASS_TIMEOUT_MS} is. The caller reports a run that ended
 * with no request at all.
 */
import { lookup } from 'node:dns/promises';
import { agentConnections, type Connection, canonicalAddress } from './agent-connections.js';

/** How often the agent's connections are read. */
export const POLL_MS = 250;
/** How long after the agent's first connection off this machine a request must have reached the proxy. */
export const BYPASS_GRACE_MS = 5_000;
/** Where connections cannot be read: how long the agent may run before a missing request is reported. */
export const BYPASS_TIMEOUT_MS = 30_000;

/** What the watch found. */
export type RoutingFinding =
  /** The agent connected to the upstream itself, not through the proxy. */
  | { kind: 'upstream_direct'; connection: Connection }
  /** The agent connected off this machine and no request reached the proxy within the grace. */
  | { kind: 'no_request_after_network'; connection: Connection; graceMs: number }
  /** Connections cannot be read here, and no request reached the proxy within the timeout. */
  | { kind: 'no_request'; timeoutMs: number };

/** Options of {@link watchRouting}. */
export interface WatchRoutingOptions {
  pid: number;
  upstream: string;
  /** How many requests have reached the proxy. */
  arrivals(): Promise<number>;
  onFinding(finding: RoutingFinding): void;
  graceMs?: number;
  timeoutMs?: number;
  /** Whether connections can be read (default: on Linux). */
  readConnections?: boolean;
}

/** The canonical addresses and port of an upstream URL (its host resolved; none when it cannot be). */
async function upstreamTarget(upstream: string): Promise<{ addresses: Set<string>; port: number }> {
  const url = new URL(upstream);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const found = await lookup(host, { all: true }).catch(() => [] as { address: string }[]);
  return { addresses: new Set([host, ...found.map((entry) => entry.address)].map(canonicalAddress)), port };
}

const isLoopback = (address: string): boolean => address.startsWith('127.') || address === '0:0:0:0:0:0:0:1';

/**
 * Watches the agent `pid` until `stop()`; each kind of finding is reported once.
 *
 * @example
 * const watch = watchRouting({ pid: child.pid, upstream, arrivals: proxy.arrivals, onFinding: report });
 * child.once('exit', () => watch.stop());
 */
export function watchRouting(options: WatchRoutingOptions): { stop(): void } {
  const {
    graceMs = BYPASS_GRACE_MS,
    timeoutMs = BYPASS_TIMEOUT_MS,
    readConnections = process.platform === 'linux',
  } = options;
  const started = Date.now();
  const reported = new Set<RoutingFinding['kind']>();
  const report = (finding: RoutingFinding): void => {
    if (reported.has(finding.kind)) return;
    reported.add(finding.kind);
    options.onFinding(finding);
  };
  let firstAway: { connection: Connection; at: number } | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const target = upstreamTarget(options.upstream);
  const poll = async (): Promise<void> => {
    const arrived = (await options.arrivals()) > 0;
    if (!readConnections) {
      if (!arrived && Date.now() - started >= timeoutMs) report({ kind: 'no_request', timeoutMs });
      return;
    }
    const { addresses, port } = await target;
    for (const connection of await agentConnections(options.pid)) {
      if (addresses.has(connection.address) && connection.port === port)
        report({ kind: 'upstream_direct', connection });
      else if (firstAway === undefined && !isLoopback(connection.address))
        firstAway = { connection, at: Date.now() };
    }
    if (!arrived && firstAway !== undefined && Date.now() - firstAway.at >= graceMs)
      report({ kind: 'no_request_after_network', connection: firstAway.connection, graceMs });
  };
  const loop = (): void => {
    if (stopped) return;
    poll()
      .catch(() => undefined)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, POLL_MS);
      });
  };
  loop();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * @module
 * `spillway wrap`'s run, as a list of steps: the run's own proxy (or a proven one on `--port`), the
 * window of the model the agent will use, the agent launched pointed at the proxy and told that
 * window, its routing watched while it runs, and its exit code returned once what the run made is
 * gone. With `check`, the agent makes its cheapest call instead and the run reports whether it
 * reached the proxy.
 */
import type { ProxyLogEntry } from '../../proxy/index.js';
import type { ProxyConfig } from '../../proxy/proxy-config.js';
import { type AgentLaunch, agentLaunch } from './agent-environment.js';
import { type AgentKind, agentKindOf, upstreamFormatOf } from './agent-kind.js';
import { CHECK_TIMEOUT_MS, type CheckReport, checkArgs, checkReport } from './check-agent.js';
import { openWrapProxy, type WrapProxy } from './open-wrap-proxy.js';
import { resolveAgentWindow } from './resolve-agent-window.js';
import { startAgent } from './run-agent.js';
import { readSharedSecret } from './shared-secret.js';
import { type RoutingFinding, watchRouting } from './watch-routing.js';

/** Options of {@link runWrapped}. */
export interface RunWrappedOptions {
  command: string;
  args: string[];
  upstream: string;
  host: string;
  /** A port to reuse a running proxy on, if it proves it holds the shared secret. */
  reusePort?: number;
  /** The user's shared secret file (see `readSharedSecret`). */
  secretFile?: string;
  /** The provider entry to redirect (Codex, opencode, pi). */
  provider?: string;
  config?: ProxyConfig;
  store: string;
  env: NodeJS.ProcessEnv;
  /** Run the agent's cheapest call and report whether it reached the proxy. */
  check?: boolean;
  /** The proxy's log, and wrap's own entries. */
  onLog(entry: ProxyLogEntry): void;
  /** A line for the person at the terminal (stderr). */
  say(line: string): void;
  /** The check's report (stdout). */
  onCheck?(report: CheckReport): void;
}

/** The user's shared secret, when there is a trustworthy one; an untrustworthy file is said and skipped. */
function sharedSecretOf(options: RunWrappedOptions): string | undefined {
  if (options.secretFile === undefined) return undefined;
  try {
    return readSharedSecret(options.secretFile);
  } catch (error) {
    options.onLog({ level: 'warn', event: 'wrap_secret_refused', message: (error as Error).message });
    return undefined;
  }
}

/** What a routing finding means, in a sentence for the terminal. */
export function describeFinding(agent: AgentKind, finding: RoutingFinding, upstream: string): string {
  const where = (connection: { address: string; port: number }) => `${connection.address}:${connection.port}`;
  switch (finding.kind) {
    case 'upstream_direct':
      return `spillway wrap: ${agent} connected to the upstream ${upstream} (${where(finding.connection)}) directly, not through the proxy: its requests there are not fitted`;
    case 'no_request_after_network':
      return `spillway wrap: ${agent} connected to ${where(finding.connection)} and no request reached the proxy within ${finding.graceMs / 1000} s: it may be talking to its provider directly, unprotected`;
    case 'no_request':
      return `spillway wrap: no request from ${agent} reached the proxy within ${finding.timeoutMs / 1000} s: if it has called its model, it did so directly, unprotected`;
  }
}

async function launchFor(
  options: RunWrappedOptions,
  kind: AgentKind,
  proxy: WrapProxy,
): Promise<AgentLaunch> {
  const args = options.check ? checkArgs(kind, options.args) : options.args;
  const resolved = await resolveAgentWindow({
    kind,
    args,
    env: options.env,
    upstream: options.upstream,
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.config ? { config: options.config } : {}),
    log: options.onLog,
  });
  return agentLaunch({
    command: options.command,
    args,
    proxyUrl: proxy.url,
    env: options.env,
    upstream: options.upstream,
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...('window' in resolved ? { window: resolved.window } : { untold: resolved.untold }),
  });
}

/**
 * Runs `command args…` through a Spillway proxy in front of `upstream`, changing no global config.
 *
 * @example
 * const code = await runWrapped({ command: 'claude', args: ['-p', 'hi'], upstream: 'https://api.anthropic.com', host: '127.0.0.1', store: 'memory', env: process.env, onLog() {}, say: console.error });
 */
export async function runWrapped(options: RunWrappedOptions): Promise<number> {
  const { upstream } = options;
  const kind = agentKindOf(options.command);
  const arrivals: { method: string; pathname: string }[] = [];
  const sharedSecret = sharedSecretOf(options);
  const proxy = await openWrapProxy({
    upstream,
    host: options.host,
    upstreamFormat: upstreamFormatOf(kind, options.provider),
    store: options.store,
    ...(options.config ? { config: options.config } : {}),
    ...(options.reusePort === undefined ? {} : { reusePort: options.reusePort }),
    ...(sharedSecret === undefined ? {} : { sharedSecret }),
    onLog: options.onLog,
    onRequest: (arrival) => arrivals.length < 20 && arrivals.push(arrival),
  });
  try {
    const launch = await launchFor(options, kind, proxy);
    options.onLog({
      level: 'info',
      event: 'wrap',
      agent: kind,
      proxy: proxy.url,
      reused: proxy.own === undefined,
      upstream,
      route: launch.route,
      told: launch.told,
      ...(launch.untold === undefined ? {} : { untold: launch.untold }),
    });
    try {
      const agent = startAgent({
        command: launch.command,
        args: launch.args,
        env: launch.env,
        quiet: options.check,
      });
      const watch = watchRouting({
        pid: agent.child.pid ?? 0,
        upstream,
        arrivals: proxy.arrivals,
        onFinding(finding) {
          const message = describeFinding(kind, finding, upstream);
          options.onLog({ level: 'warn', event: 'wrap_bypass', agent: kind, finding: finding.kind, message });
          options.say(message);
        },
      });
      const limit = options.check
        ? setTimeout(() => agent.child.kill('SIGTERM'), CHECK_TIMEOUT_MS).unref()
        : undefined;
      const code = await agent.exit.finally(() => {
        watch.stop();
        if (limit) clearTimeout(limit);
      });
      const arrived = await proxy.arrivals();
      if (arrived === 0) {
        const message = `spillway wrap: ${kind} exited (${code}) and no request of it reached the proxy at ${proxy.url}: if it called its model, it did so directly, unprotected`;
        options.onLog({
          level: 'warn',
          event: 'wrap_bypass',
          agent: kind,
          finding: 'no_request_at_exit',
          message,
        });
        options.say(message);
      }
      if (!options.check) return code;
      const report = checkReport({ kind, proxy: proxy.url, launch, arrived, arrivals, exitCode: code });
      options.onCheck?.(report);
      return report.arrived ? 0 : 1;
    } finally {
      await launch.cleanup();
    }
  } finally {
    await proxy.close();
  }
}

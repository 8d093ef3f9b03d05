/**
 * @module
 * `spillway wrap`'s run: a proxy for the upstream (one already listening on the port for the same
 * upstream is reused, else one is started on a free port), the agent started against it with its
 * terminal and signals, and its exit code returned once the proxy this run started is stopped.
 */
import { spawn } from 'node:child_process';
import { SpillwayError } from '../../core/index.js';
import { serverRoot } from '../../models/index.js';
import { type ProxyLogEntry, startProxy } from '../../proxy/index.js';
import type { ProxyConfig } from '../../proxy/proxy-config.js';
import { agentKindOf, agentLaunch, upstreamFormatOf } from './agent-environment.js';

/** Options of {@link runWrapped}. */
export interface RunWrappedOptions {
  command: string;
  args: string[];
  upstream: string;
  port: number;
  host: string;
  /** The provider entry to redirect (Codex, opencode, pi). */
  provider?: string;
  config?: ProxyConfig;
  store: string;
  env: NodeJS.ProcessEnv;
  onLog(entry: ProxyLogEntry): void;
}

/** Whether a proxy for `upstream` already answers at `url` (its `/healthz` names the upstream). */
async function runningProxy(url: string, upstream: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
    if (!response.ok) return false;
    const health = (await response.json()) as { status?: unknown; upstream?: unknown };
    return health.status === 'ok' && health.upstream === serverRoot(upstream);
  } catch {
    return false;
  }
}

/** Runs the agent to its end; resolves with its exit code (128 + the signal number when killed). */
function runAgent(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const done = () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      done();
      reject(
        new SpillwayError(
          'invalid_argument',
          `cannot run ${JSON.stringify(command)}: ${error.code === 'ENOENT' ? 'not found on PATH; install it or give its path' : error.message}`,
        ),
      );
    });
    child.once('exit', (code, signal) => {
      done();
      const signals: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
      resolve(code ?? 128 + (signal ? (signals[signal] ?? 1) : 1));
    });
  });
}

/**
 * Runs `command args…` through a Spillway proxy in front of `upstream`, changing no global config.
 *
 * @example
 * const code = await runWrapped({ command: 'claude', args: ['-p', 'hi'], upstream: 'https://api.anthropic.com', port: 8421, host: '127.0.0.1', store: 'memory', env: process.env, onLog() {} });
 */
export async function runWrapped(options: RunWrappedOptions): Promise<number> {
  const { command, args, upstream, host, env } = options;
  const kind = agentKindOf(command);
  const shared = `http://${host.includes(':') ? `[${host}]` : host}:${options.port}`;
  const reuse = await runningProxy(shared, upstream);
  const proxy = reuse
    ? undefined
    : await startProxy({
        upstream,
        port: 0,
        host,
        upstreamFormat: upstreamFormatOf(kind, options.provider),
        store: options.store,
        ...(options.config ? { config: options.config } : {}),
        onLog: options.onLog,
      });
  const proxyUrl = proxy?.url ?? shared;
  options.onLog({ level: 'info', event: 'wrap', agent: kind, proxy: proxyUrl, reused: reuse, upstream });
  const launch = await agentLaunch({
    command,
    args,
    proxyUrl,
    env,
    ...(options.provider === undefined ? {} : { provider: options.provider }),
  });
  try {
    return await runAgent(launch.command, launch.args, launch.env);
  } finally {
    await launch.cleanup();
    await proxy?.close();
  }
}

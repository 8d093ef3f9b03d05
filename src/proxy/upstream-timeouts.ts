/**
 * @module
 * How long the proxy waits on the upstream: to connect, for the first byte of the answer, and
 * between two chunks of it. A hung upstream (one that accepts and never answers, or stops
 * mid-stream) then ends the request with a typed error naming the timeout and the setting that
 * raises it, never a client waiting forever.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { SpillwayError } from '../core/index.js';
import type { ProxyErrorInfo } from './proxy-error-body.js';

/** The three waits, in milliseconds. */
export interface UpstreamTimeouts {
  /** From the start of a new connection until it is open. */
  connectMs: number;
  /** From the request being sent until the first byte of the answer (its status line). */
  firstByteMs: number;
  /** Between two chunks of the answer (a streaming reply included). */
  idleMs: number;
}

/**
 * The defaults are Node's own `fetch` (undici) defaults: `connectTimeout` 10 s, `headersTimeout` and
 * `bodyTimeout` 300 s (undici `Client` options). Five minutes covers a long prefill on a slow local
 * server; anything longer is set with the flags or the config.
 */
export const DEFAULT_UPSTREAM_TIMEOUTS: Readonly<UpstreamTimeouts> = {
  connectMs: 10_000,
  firstByteMs: 300_000,
  idleMs: 300_000,
};

/** Which timeout fired, with the flag and config key that set it. */
export const TIMEOUT_SETTINGS = {
  connect: {
    field: 'connectMs',
    flag: '--connect-timeout',
    configKey: 'connect_timeout_ms',
    what: 'to connect',
  },
  first_byte: {
    field: 'firstByteMs',
    flag: '--first-byte-timeout',
    configKey: 'first_byte_timeout_ms',
    what: 'for the first byte of the answer',
  },
  idle: {
    field: 'idleMs',
    flag: '--idle-timeout',
    configKey: 'idle_timeout_ms',
    what: 'for the next chunk of the answer',
  },
} as const;

export type UpstreamTimeoutName = keyof typeof TIMEOUT_SETTINGS;

/** The facts of an upstream timeout, as its error's `data` carries them. */
export interface UpstreamTimeoutFacts {
  failure: 'timeout';
  timeout: UpstreamTimeoutName;
  timeoutMs: number;
  flag: string;
  configKey: string;
}

function timeoutError(name: UpstreamTimeoutName, ms: number, origin: string): SpillwayError {
  const setting = TIMEOUT_SETTINGS[name];
  const data: UpstreamTimeoutFacts = {
    failure: 'timeout',
    timeout: name,
    timeoutMs: ms,
    flag: setting.flag,
    configKey: setting.configKey,
  };
  return new SpillwayError(
    'provider_error',
    `the upstream ${origin} did not answer: waited ${ms} ms ${setting.what} (${name} timeout); if it needs longer, raise ${setting.flag} or ${setting.configKey} in the config`,
    { data: { ...data } },
  );
}

/** The facts of an error if it is an upstream timeout. */
export function upstreamTimeoutOf(error: unknown): UpstreamTimeoutFacts | undefined {
  if (!SpillwayError.isInstance(error) || error.data.failure !== 'timeout') return undefined;
  return error.data as unknown as UpstreamTimeoutFacts;
}

/**
 * Runs `expire` once a timer has run out, unless `alive()` says the wait is over. The check waits
 * for the next turn of the event loop: expired timers run before the loop reads its sockets, so an
 * answer that arrived while the loop was busy (fitting other requests, under load) is read first and
 * counts, rather than the proxy's own queueing counting against the upstream.
 */
function expireUnlessAlive(alive: () => boolean, expire: () => void): () => void {
  return () =>
    setImmediate(() => {
      if (!alive()) expire();
    });
}

/**
 * Arms the connect and first-byte timeouts on an outgoing request; once the answer starts,
 * {@link armIdleTimeout} takes over. The first-byte wait starts when the request goes out on an open
 * connection (not while it waits for a socket of the pool, nor while the connection opens). A
 * timeout destroys the request with its typed error.
 */
export function armRequestTimeouts(
  outgoing: ClientRequest,
  timeouts: UpstreamTimeouts,
  origin: string,
): void {
  let answered = false;
  let firstByte: NodeJS.Timeout | undefined;
  const startFirstByte = (): void => {
    if (answered || outgoing.destroyed) return;
    firstByte = setTimeout(
      expireUnlessAlive(
        () => answered || outgoing.destroyed,
        () => outgoing.destroy(timeoutError('first_byte', timeouts.firstByteMs, origin)),
      ),
      timeouts.firstByteMs,
    );
  };
  outgoing.once('socket', (socket: Socket) => {
    if (!socket.connecting) {
      startFirstByte();
      return;
    }
    const timer = setTimeout(
      () => outgoing.destroy(timeoutError('connect', timeouts.connectMs, origin)),
      timeouts.connectMs,
    );
    const clear = (): void => clearTimeout(timer);
    socket.once('connect', () => {
      clear();
      startFirstByte();
    });
    socket.once('close', clear);
    outgoing.once('close', clear);
  });
  const stop = (): void => {
    answered = true;
    clearTimeout(firstByte);
  };
  outgoing.once('response', stop);
  outgoing.once('close', stop);
}

/**
 * Arms the idle timeout on an answer being read: when no chunk arrives for `idleMs`, the answer is
 * destroyed with the typed error, which its reader then throws.
 */
export function armIdleTimeout(response: IncomingMessage, timeouts: UpstreamTimeouts, origin: string): void {
  const socket = response.socket;
  if (!socket) return;
  const onTimeout = (): void => {
    const read = socket.bytesRead;
    expireUnlessAlive(
      () => socket.bytesRead !== read || response.destroyed,
      () => response.destroy(timeoutError('idle', timeouts.idleMs, origin)),
    )();
  };
  socket.setTimeout(timeouts.idleMs);
  socket.on('timeout', onTimeout);
  const disarm = (): void => {
    socket.off('timeout', onTimeout);
    socket.setTimeout(0);
  };
  response.once('end', disarm);
  response.once('close', disarm);
}

/**
 * The 504 a client gets for an upstream timeout: the message, and as fields the timeout, its value,
 * and the flag and config key that raise it.
 *
 * @example
 * sendProxyError(exchange, timeoutReply(facts, error.message));
 * // {"error":{"message":"the upstream … (first_byte timeout); …","type":"upstream_error","param":null,
 * //   "code":"upstream_timeout","timeout":"first_byte","timeout_ms":300000,"flag":"--first-byte-timeout","config_key":"first_byte_timeout_ms"}}
 */
export function timeoutReply(facts: UpstreamTimeoutFacts, message: string): ProxyErrorInfo {
  return {
    status: 504,
    message,
    type: 'upstream_error',
    code: 'upstream_timeout',
    details: {
      timeout: facts.timeout,
      timeout_ms: facts.timeoutMs,
      flag: facts.flag,
      config_key: facts.configKey,
    },
  };
}

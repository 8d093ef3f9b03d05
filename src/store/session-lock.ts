/**
 * @module
 * One writer per session: a running chat holds its session, and another process that wants to write
 * it (a second `spillway chat --resume`) is told who holds it instead of interleaving its turns. A
 * holder is a process on a machine; a holder whose process has ended (killed, crashed) on this
 * machine holds nothing, so a lock never outlives its chat.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { SpillwayError } from '../core/index.js';

/** Who holds a session for writing. */
export interface SessionHolder {
  /** Set by the holder; only it releases the lock. */
  token: string;
  pid: number;
  host: string;
  /** The process's start time (clock ticks since boot, Linux), so a reused pid is not its holder. */
  started?: string;
  /** What holds it: `spillway chat`. */
  command: string;
  /** When it took the session (ISO 8601). */
  since: string;
}

/** What taking a session's lock gave. */
export type SessionLockResult = { ok: true } | { ok: false; holder: SessionHolder };

/** The start time of a process, where `/proc` says it. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * This process as a holder.
 *
 * @example
 * store.lockSession(sessionId, sessionHolder({ command: 'spillway chat' }));
 */
export function sessionHolder({
  command,
  now = () => new Date().toISOString(),
}: {
  command: string;
  now?: () => string;
}): SessionHolder {
  const started = startTimeOf(process.pid);
  return {
    token: randomUUID(),
    pid: process.pid,
    host: hostname(),
    ...(started === undefined ? {} : { started }),
    command,
    since: now(),
  };
}

/**
 * Whether a holder may still be writing: on another machine, always (nothing here can tell); on
 * this one, while its process runs (and is the same process, where start times are known).
 */
export function holderAlive(holder: SessionHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const started = startTimeOf(holder.pid);
  return holder.started === undefined || started === undefined || started === holder.started;
}

/** Reads a stored holder, checked; anything else is no holder. */
export function parseSessionHolder(value: unknown): SessionHolder | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const holder = value as Record<string, unknown>;
  if (
    typeof holder.token !== 'string' ||
    typeof holder.pid !== 'number' ||
    typeof holder.host !== 'string' ||
    typeof holder.command !== 'string' ||
    typeof holder.since !== 'string'
  )
    return undefined;
  return {
    token: holder.token,
    pid: holder.pid,
    host: holder.host,
    ...(typeof holder.started === 'string' ? { started: holder.started } : {}),
    command: holder.command,
    since: holder.since,
  };
}

/**
 * The error a writer gets for a session another process holds: who holds it, since when, and what
 * to do.
 *
 * @example
 * throw sessionInUse('3f2a…', holder);
 */
export function sessionInUse(sessionId: string, holder: SessionHolder): SpillwayError {
  return new SpillwayError(
    'invalid_argument',
    `session ${sessionId} is in use by ${holder.command} (pid ${holder.pid} on ${holder.host}, since ${holder.since}); end that chat first, or start a new session`,
    {
      data: {
        reason: 'session_in_use',
        session: sessionId,
        holder: { pid: holder.pid, host: holder.host, command: holder.command, since: holder.since },
      },
    },
  );
}

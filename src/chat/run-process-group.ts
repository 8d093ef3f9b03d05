/**
 * @module
 * A shell command in a process group of its own, so that the limit, a cancel and the command's end
 * stop everything it started: `sleep 170 & echo x` returns once `sh` exits, and neither a limit nor
 * Ctrl+C leaves a child running under PID 1. The group gets SIGTERM, then SIGKILL after a grace
 * period; processes that left the group (`setsid`, double-forking daemons) are found by the command's
 * mark and tree and stopped the same way (see `CommandProcesses`); nobody waits for a pipe a stray
 * process still holds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { CommandProcesses } from './command-processes.js';

/** Time the group has between SIGTERM and SIGKILL, in milliseconds. */
export const KILL_GRACE_MS = 2_000;
/** Time output may still arrive after `sh` exits before its pipes are closed, in milliseconds. */
export const DRAIN_MS = 200;

/** How a command ended. */
export type ProcessEnd =
  | { kind: 'exited'; code: number }
  | { kind: 'signal'; signal: string }
  | { kind: 'timeout'; limitMs: number }
  | { kind: 'cancelled' };

/** What a command printed and how it ended. */
export interface ProcessGroupResult {
  output: string;
  end: ProcessEnd;
  /** Processes of the group still running when `sh` ended, stopped with it. */
  stoppedOthers: boolean;
}

/** Options of {@link runProcessGroup}. */
export interface RunProcessGroupOptions {
  command: string;
  cwd: string;
  limitMs: number;
  signal?: AbortSignal;
  /** Output as it arrives, stdout and stderr interleaved. */
  onOutput?: (text: string) => void;
  /** Keeps memory bounded: at most this many characters of the start and of the end are kept. */
  keepChars?: { head: number; tail: number };
}

/** The start and the end of a growing text, with how much of the middle was dropped. */
function boundedText({ head, tail }: { head: number; tail: number }) {
  let start = '';
  let end = '';
  let dropped = 0;
  return {
    add(text: string) {
      const room = head - start.length;
      if (room > 0) {
        start += text.slice(0, room);
        text = text.slice(room);
      }
      end += text;
      if (end.length > 2 * tail) {
        dropped += end.length - tail;
        end = end.slice(-tail);
      }
    },
    text: () =>
      dropped === 0
        ? start + end
        : `${start}\n[… ${dropped.toLocaleString('en-US')} characters of output cut …]\n${end}`,
  };
}

const WINDOWS = process.platform === 'win32';

/** Sends `signal` to every process of the group; false when none is left. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  if (child.pid === undefined) return false;
  try {
    if (WINDOWS) return child.kill(signal || undefined);
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the group, SIGKILL after the grace period if anything is left. */
function stopGroup(child: ChildProcess): void {
  if (!signalGroup(child, 'SIGTERM')) return;
  setTimeout(() => signalGroup(child, 'SIGKILL'), KILL_GRACE_MS).unref();
}

/** A wait someone awaits: its timer holds the process (an unref'd one could leave the await unsettled). */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `command` with `sh -c` in its own process group and resolves when `sh` has ended and its
 * output is in: at the limit or on abort the whole group is stopped; when `sh` exits, processes it
 * left in the background are stopped too (a command's processes end with it).
 *
 * @example
 * const { output, end } = await runProcessGroup({ command: 'npm test', cwd: root, limitMs: 120_000, signal });
 */
export async function runProcessGroup({
  command,
  cwd,
  limitMs,
  signal,
  onOutput,
  keepChars = { head: Number.POSITIVE_INFINITY, tail: Number.POSITIVE_INFINITY },
}: RunProcessGroupOptions): Promise<ProcessGroupResult> {
  const processes = new CommandProcesses();
  const child = spawn('sh', ['-c', command], {
    cwd,
    env: { ...process.env, ...processes.environment },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: !WINDOWS,
  });
  processes.follow(child.pid);
  const output = boundedText(keepChars);
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output.add(text);
    onOutput?.(text);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let stopped: ProcessEnd | undefined;
  let stopping: Promise<void> | undefined;
  const stopAll = (): Promise<void> => {
    stopGroup(child);
    stopping ??= processes.stop({ graceMs: KILL_GRACE_MS });
    return stopping;
  };
  const stop = (end: ProcessEnd) => {
    if (stopped) return;
    stopped = end;
    void stopAll();
  };
  const timer = setTimeout(() => stop({ kind: 'timeout', limitMs }), limitMs);
  const onAbort = () => stop({ kind: 'cancelled' });
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code, exitSignal) => resolve({ code, signal: exitSignal }));
      },
    );
    // Output written just before the exit is still in the pipes; a process left in the background
    // may hold them open for good, so they are only waited for a moment.
    await Promise.race([closed, delay(DRAIN_MS)]);
    const stoppedOthers = stopped === undefined && (signalGroup(child, 0) || processes.anyAlive());
    // What it started is stopped before the result is given: nothing of it outlives the tool call.
    if (stoppedOthers || stopped !== undefined) await stopAll();
    else processes.release();
    child.stdout?.destroy();
    child.stderr?.destroy();
    const end: ProcessEnd =
      stopped ??
      (exit.code === null
        ? { kind: 'signal', signal: exit.signal ?? 'unknown' }
        : { kind: 'exited', code: exit.code });
    return { output: output.text(), end, stoppedOthers };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    processes.release();
  }
}

/**
 * @module
 * The agent process: started with the terminal (or, for a check, its output on stderr), SIGINT and
 * SIGTERM passed on, and its exit code (128 + the signal number when killed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { SpillwayError } from '../../core/index.js';

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** A running agent and its exit code to come. */
export interface RunningAgent {
  child: ChildProcess;
  exit: Promise<number>;
}

/**
 * Starts `command args…`. With `quiet`, its standard input is closed and its output goes to
 * stderr, so that stdout stays the caller's.
 */
export function startAgent({
  command,
  args,
  env,
  quiet = false,
}: {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  quiet?: boolean;
}): RunningAgent {
  const child = spawn(command, args, { env, stdio: quiet ? ['ignore', 2, 2] : 'inherit' });
  const exit = new Promise<number>((resolve, reject) => {
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
      resolve(code ?? 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 1) : 1));
    });
  });
  return { child, exit };
}

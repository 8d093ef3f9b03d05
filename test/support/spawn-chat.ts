/**
 * `spillway chat` as its own process for the hostile suite: the command line through tsx, in a
 * project directory with its own session store and no keys from the environment, stopped with
 * SIGKILL if it outlives `limitMs` (a hang is a failure the test can report, never a stuck run).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');

/** How a chat process ended. */
export interface ChatRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Killed at `limitMs`: it hung. */
  killed: boolean;
  ms: number;
}

/** A chat process still running, with what it printed so far. */
export interface RunningChat {
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  ended: Promise<ChatRun>;
}

/** Starts `spillway chat …args` in `cwd`, with `cwd/sessions.db` as its store. */
export function startChat(
  cwd: string,
  args: string[],
  { limitMs, input, env = {} }: { limitMs: number; input?: string; env?: NodeJS.ProcessEnv },
): RunningChat {
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    SPILLWAY_STORE: join(cwd, 'sessions.db'),
    HOME: cwd,
    ...env,
  };
  for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'SPILLWAY_API_KEY', 'XDG_CONFIG_HOME'])
    delete environment[key];
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', loader, join(root, 'src/cli/bin.ts'), 'chat', ...args], {
    cwd,
    env: environment,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, limitMs);
  if (input === undefined) child.stdin?.end();
  else child.stdin?.end(input);
  const ended = new Promise<ChatRun>((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, killed, ms: performance.now() - started });
    }),
  );
  return { child, output: () => ({ stdout, stderr }), ended };
}

/**
 * A child process run to its end with what it printed: the one way tests and benches run the
 * command line and other scripts they read the output of.
 */
import { spawn } from 'node:child_process';

/** How a process ended, and what it printed. */
export interface ProcessOutput {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command` with `args` and resolves when it closes; `input`, when given, is written to its
 * standard input and closes it (else it stays an open pipe). Rejects only when the process cannot be
 * started.
 *
 * @example
 * const { status, stdout } = await runProcess(process.execPath, ['--version']);
 */
export function runProcess(
  command: string,
  args: readonly string[],
  { cwd, env, input }: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<ProcessOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    if (input !== undefined) child.stdin.end(input);
  });
}

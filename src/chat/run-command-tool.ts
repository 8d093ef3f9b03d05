import { spawn } from 'node:child_process';
import type { LoopTool } from '../loop/index.js';
import type { ConfirmAction } from './confirm-action.js';
import { linesThatFit, NO_OUTPUT_LIMIT, type OutputLimit } from './output-limit.js';

/** A command is stopped after this long, in milliseconds. */
export const COMMAND_TIMEOUT_MS = 120_000;
/** Output kept from a command, in characters: the start and, mostly, the end (where errors are). */
export const COMMAND_OUTPUT_HEAD = 4_000;
export const COMMAND_OUTPUT_TAIL = 12_000;

/** The start and, mostly, the end of a command's output (where errors are), within both caps. */
function capOutput(text: string, limit: OutputLimit): string {
  const lines = text.split('\n');
  const tokens = limit.tokens();
  const share = (part: number) => ({
    tokens: () => tokens * part,
    ...(limit.model ? { model: limit.model } : {}),
  });
  const head = linesThatFit({ lines, maxChars: COMMAND_OUTPUT_HEAD, limit: share(0.25) });
  const tail = linesThatFit({
    lines: lines.slice(head).reverse(),
    maxChars: COMMAND_OUTPUT_TAIL,
    limit: share(0.75),
  });
  if (head + tail >= lines.length) return text;
  const cut = lines.length - head - tail;
  return [
    ...lines.slice(0, head),
    `[… ${cut} lines of output cut …]`,
    ...lines.slice(lines.length - tail),
  ].join('\n');
}

/**
 * The `run_command` tool: runs a shell command in the project directory after the user allows it,
 * with a timeout and the turn's abort signal (Ctrl+C ends the process), and returns its output and
 * exit code.
 *
 * @example
 * const tool = createRunCommandTool({ root: process.cwd(), confirm });
 */
export function createRunCommandTool({
  root,
  confirm,
  outputLimit = NO_OUTPUT_LIMIT,
}: {
  root: string;
  confirm: ConfirmAction;
  outputLimit?: OutputLimit;
}): LoopTool {
  return {
    name: 'run_command',
    description: `Run a shell command in the project directory and return its output (stdout and stderr) and exit code. Stopped after ${COMMAND_TIMEOUT_MS / 1000} s. The user is asked first.`,
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The command line, run with sh -c.' } },
      required: ['command'],
    },
    source: 'builtin',
    async execute(args, { signal }) {
      const command = (args as { command?: unknown } | null)?.command;
      if (typeof command !== 'string' || command.trim() === '')
        throw new Error('give "command" as a non-empty string');
      const allowed = await confirm({
        tool: 'run_command',
        summary: `run ${command}`,
        ...(signal ? { signal } : {}),
      });
      if (!allowed)
        throw new Error(
          `the user did not allow running ${JSON.stringify(command)}; ask them or do something else`,
        );
      return await new Promise<string>((resolve, reject) => {
        const child = spawn('sh', ['-c', command], {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: COMMAND_TIMEOUT_MS,
          ...(signal ? { signal } : {}),
        });
        let output = '';
        const collect = (chunk: Buffer) => {
          output += chunk.toString();
          // Keep memory bounded on chatty commands: only what capOutput keeps can matter.
          if (output.length > 4 * (COMMAND_OUTPUT_HEAD + COMMAND_OUTPUT_TAIL))
            output = output.slice(0, COMMAND_OUTPUT_HEAD) + output.slice(-2 * COMMAND_OUTPUT_TAIL);
        };
        child.stdout.on('data', collect);
        child.stderr.on('data', collect);
        child.on('error', (error) => {
          if (signal?.aborted) reject(new Error('the command was cancelled'));
          else reject(new Error(`cannot run the command: ${error.message}`));
        });
        child.on('close', (code, killed) => {
          const status = code === null ? `stopped (${killed ?? 'signal'})` : `exit code ${code}`;
          resolve(`${capOutput(output.trimEnd(), outputLimit)}\n[${status}]`.trimStart());
        });
      });
    },
  };
}

import { SpillwayError } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import type { ConfirmAction } from './confirm-action.js';
import {
  cutLine,
  LINE_MAX_CHARS,
  linesThatFit,
  lineThatFits,
  NO_OUTPUT_LIMIT,
  type OutputLimit,
} from './output-limit.js';
import { type ProcessEnd, runProcessGroup } from './run-process-group.js';

/** A command is stopped after this long, in milliseconds (`command_timeout_seconds` changes it). */
export const COMMAND_TIMEOUT_MS = 120_000;
/** Output kept from a command, in characters: the start and, mostly, the end (where errors are). */
export const COMMAND_OUTPUT_HEAD = 4_000;
export const COMMAND_OUTPUT_TAIL = 12_000;

/** What a running command printed, as it arrives (for the terminal; the model gets the result). */
export type CommandOutput = (chunk: { callId: string; text: string }) => void;

/** The start and, mostly, the end of a command's output (where errors are), within both caps. */
function capOutput(text: string, limit: OutputLimit): string {
  const lines = text.split('\n').map((line) => cutLine({ line }));
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
  if (head + tail >= lines.length) return lines.join('\n');
  if (head + tail === 0) {
    // Not even one line fits whole: the last one, cut to fit, so the model sees something.
    const last = lineThatFits({ line: lines.at(-1) ?? '', maxChars: COMMAND_OUTPUT_TAIL, limit });
    return lines.length === 1 ? last : `[… ${lines.length - 1} lines of output cut …]\n${last}`;
  }
  const cut = lines.length - head - tail;
  return [
    ...lines.slice(0, head),
    `[… ${cut} lines of output cut …]`,
    ...lines.slice(lines.length - tail),
  ].join('\n');
}

function statusOf(end: ProcessEnd, stoppedOthers: boolean): string {
  const others = stoppedOthers ? '; processes it left running were stopped' : '';
  if (end.kind === 'exited') return `exit code ${end.code}${others}`;
  if (end.kind === 'signal') return `stopped (${end.signal})${others}`;
  if (end.kind === 'timeout')
    return `stopped after ${end.limitMs / 1000} s, the command limit; run something shorter, or in steps`;
  return 'cancelled';
}

/**
 * The `run_command` tool: runs a shell command in the project directory after the user allows it,
 * in a process group of its own that the limit and the turn's abort signal (Ctrl+C) stop as a whole,
 * and returns its output and how it ended. `onOutput` sees the output as it arrives.
 *
 * @example
 * const tool = createRunCommandTool({ root: process.cwd(), confirm, onOutput: ({ text }) => show(text) });
 */
export function createRunCommandTool({
  root,
  confirm,
  outputLimit = NO_OUTPUT_LIMIT,
  timeoutMs = COMMAND_TIMEOUT_MS,
  onOutput,
}: {
  root: string;
  confirm: ConfirmAction;
  outputLimit?: OutputLimit;
  timeoutMs?: number;
  onOutput?: CommandOutput;
}): LoopTool {
  return {
    name: 'run_command',
    description: `Run a shell command in the project directory and return its output (stdout and stderr) and exit code. Stopped after ${timeoutMs / 1000} s, with every process it started. The user is asked first.`,
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The command line, run with sh -c.' } },
      required: ['command'],
    },
    source: 'builtin',
    async execute(args, { signal, callId }) {
      const command = (args as { command?: unknown } | null)?.command;
      if (typeof command !== 'string' || command.trim() === '')
        throw new SpillwayError('invalid_argument', 'give "command" as a non-empty string');
      const firstLine = command.trim().split('\n')[0] as string;
      const allowed = await confirm({
        tool: 'run_command',
        summary: `run ${firstLine}${firstLine === command.trim() ? '' : ' …'}`,
        ...(firstLine === command.trim() ? {} : { preview: command }),
        ...(signal ? { signal } : {}),
      });
      if (!allowed)
        throw new SpillwayError(
          'aborted',
          `the user did not allow running ${JSON.stringify(command)}; ask them or do something else`,
          { data: { reason: 'refused' } },
        );
      const { output, end, stoppedOthers } = await runProcessGroup({
        command,
        cwd: root,
        limitMs: timeoutMs,
        ...(signal ? { signal } : {}),
        ...(onOutput ? { onOutput: (text: string) => onOutput({ callId, text }) } : {}),
        // Bounded memory on chatty commands: a little more than capOutput can keep.
        keepChars: {
          head: 2 * (COMMAND_OUTPUT_HEAD + LINE_MAX_CHARS),
          tail: 2 * (COMMAND_OUTPUT_TAIL + LINE_MAX_CHARS),
        },
      }).catch((error: Error) => {
        throw new SpillwayError('internal', `cannot run the command: ${error.message}`, { cause: error });
      });
      if (end.kind === 'cancelled')
        throw new SpillwayError('aborted', 'the command was cancelled', { data: { reason: 'cancelled' } });
      return `${capOutput(output.trimEnd(), outputLimit)}\n[${statusOf(end, stoppedOthers)}]`.trimStart();
    },
  };
}

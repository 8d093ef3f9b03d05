import type { LoopTool } from '../loop/index.js';
import type { ConfirmAction } from './confirm-action.js';
import { createFileTools } from './file-tools.js';
import type { OutputLimit } from './output-limit.js';
import { type CommandOutput, createRunCommandTool } from './run-command-tool.js';

/**
 * The chat's built-in tools, acting in `root`: `read_file`, `list_directory`, `search_text`,
 * `write_file`, `edit_file` and `run_command`. The last three ask `confirm` before they act.
 *
 * @example
 * const tools = createBuiltinTools({ root: process.cwd(), confirm: askYesNo });
 */
export function createBuiltinTools({
  root,
  confirm,
  outputLimit,
  commandTimeoutMs,
  onCommandOutput,
}: {
  root: string;
  confirm: ConfirmAction;
  /** What one result may take (the chat gives each a third of the prompt budget). */
  outputLimit?: OutputLimit;
  /** When `run_command` stops a command (default 120 s). */
  commandTimeoutMs?: number;
  /** A running command's output, as it arrives. */
  onCommandOutput?: CommandOutput;
}): LoopTool[] {
  const options = { root, confirm, ...(outputLimit ? { outputLimit } : {}) };
  return [
    ...createFileTools(options),
    createRunCommandTool({
      ...options,
      ...(commandTimeoutMs === undefined ? {} : { timeoutMs: commandTimeoutMs }),
      ...(onCommandOutput ? { onOutput: onCommandOutput } : {}),
    }),
  ];
}

import type { LoopTool } from '../loop/index.js';
import type { ConfirmAction } from './confirm-action.js';
import { createFileTools } from './file-tools.js';
import { createRunCommandTool } from './run-command-tool.js';

/**
 * The chat's built-in tools, acting in `root`: `read_file`, `list_directory`, `search_text`,
 * `write_file` and `run_command`. The last two ask `confirm` before they act.
 *
 * @example
 * const tools = createBuiltinTools({ root: process.cwd(), confirm: askYesNo });
 */
export function createBuiltinTools({ root, confirm }: { root: string; confirm: ConfirmAction }): LoopTool[] {
  return [...createFileTools({ root, confirm }), createRunCommandTool({ root, confirm })];
}

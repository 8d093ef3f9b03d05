/**
 * @module
 * The chat's file tools: read a file, list a directory, search text, write a file, edit a file. Every
 * path is checked on its real location (links followed) and must stay inside the project directory;
 * only regular files are read or written; outputs are capped so one call cannot flood the window.
 */
import type { LoopTool } from '../loop/index.js';
import type { ConfirmAction } from './confirm-action.js';
import { createEditFileTool } from './edit-file-tool.js';
import { createListDirectoryTool } from './list-directory-tool.js';
import { NO_OUTPUT_LIMIT, type OutputLimit } from './output-limit.js';
import { createReadFileTool } from './read-file-tool.js';
import { createSearchTextTool } from './search-text-tool.js';
import { createWriteFileTool } from './write-file-tool.js';

export { LIST_MAX_ENTRIES } from './list-directory-tool.js';
export { READ_MAX_CHARS } from './read-file-tool.js';
export { SEARCH_MAX_MATCHES } from './search-text-tool.js';

/**
 * The file tools, acting inside `root`. `write_file` and `edit_file` ask `confirm` before they write,
 * with the real path and a preview; `read_file` and `search_text` return at most what `outputLimit`
 * allows.
 *
 * @example
 * const tools = createFileTools({ root: process.cwd(), confirm: async () => false });
 */
export function createFileTools({
  root,
  confirm,
  outputLimit = NO_OUTPUT_LIMIT,
}: {
  root: string;
  confirm: ConfirmAction;
  /** What one result may take; `read_file` and `search_text` stop there and say how to read on. */
  outputLimit?: OutputLimit;
}): LoopTool[] {
  return [
    createReadFileTool({ root, limit: outputLimit }),
    createListDirectoryTool({ root }),
    createSearchTextTool({ root, limit: outputLimit }),
    createWriteFileTool({ root, confirm }),
    createEditFileTool({ root, confirm }),
  ];
}

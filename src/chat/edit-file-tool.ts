import { SpillwayError } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import type { ConfirmAction } from './confirm-action.js';
import { inspectWriteTarget, writeRegularFile } from './regular-file.js';
import { argumentsOf } from './tool-arguments.js';
import { resolveWorkspacePath } from './workspace-path.js';
import { confirmWrite } from './write-file-tool.js';

/** Where `needle` occurs in `text`, without overlaps, as character offsets. */
export function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    found.push(at);
  return found;
}

const lineAt = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

/** What an edit changes: the new text and where, or why it cannot be made. */
export function applyEdit({
  text,
  oldString,
  newString,
  replaceAll,
  shown,
}: {
  text: string;
  oldString: string;
  newString: string;
  replaceAll: boolean;
  shown: string;
}): { after: string; lines: number[] } {
  const fail = (reason: string, message: string, data: Record<string, unknown> = {}) =>
    new SpillwayError('invalid_argument', message, { data: { reason, path: shown, ...data } });
  if (oldString === newString)
    throw fail('no_change', 'old_string and new_string are the same; nothing to edit');
  const found = occurrences(text, oldString);
  const lines = found.map((offset) => lineAt(text, offset));
  if (found.length === 0)
    throw fail(
      'no_match',
      `old_string is not in ${shown}; read the file again and copy the text exactly, whitespace and indentation included`,
      { matches: 0 },
    );
  if (found.length > 1 && !replaceAll)
    throw fail(
      'many_matches',
      `old_string occurs ${found.length} times in ${shown} (lines ${lines.join(', ')}); include more of the surrounding lines to pick one, or set replace_all to change every one`,
      { matches: found.length, lines },
    );
  return { after: text.split(oldString).join(newString), lines };
}

/** The `edit_file` tool: one exact piece of text replaced (or every occurrence, when asked). */
export function createEditFileTool({ root, confirm }: { root: string; confirm: ConfirmAction }): LoopTool {
  return {
    name: 'edit_file',
    description:
      'Edit a text file of the project: replace old_string, which must occur exactly once (copy it from read_file, with enough surrounding lines to be unique), by new_string. Set replace_all to replace every occurrence. The user sees the diff and is asked first.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path relative to the project directory.' },
        old_string: { type: 'string', description: 'The exact text to replace.' },
        new_string: { type: 'string', description: 'The text to put in its place.' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence (default false).' },
      },
      required: ['path', 'old_string', 'new_string'],
    },
    source: 'builtin',
    async execute(args, { signal }) {
      const { path, old_string: oldString, new_string: newString, replace_all } = argumentsOf(args);
      if (typeof oldString !== 'string' || oldString === '')
        throw new SpillwayError(
          'invalid_argument',
          'give "old_string" as the exact, non-empty text to replace; to create a file use write_file',
        );
      if (typeof newString !== 'string')
        throw new SpillwayError('invalid_argument', 'give "new_string" as a string');
      const target = await resolveWorkspacePath({ root, path });
      const inspected = await inspectWriteTarget({ root, shown: target.shown });
      const before = inspected.before;
      if (before === undefined)
        throw new SpillwayError(
          'invalid_argument',
          `${target.shown} does not exist; to create a file use write_file`,
          { data: { reason: 'no_file', path: target.shown } },
        );
      const { after, lines } = applyEdit({
        text: before,
        oldString,
        newString,
        replaceAll: replace_all === true,
        shown: target.shown,
      });
      const where = `line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}`;
      await confirmWrite({
        confirm,
        tool: 'edit_file',
        target,
        before,
        after,
        detail: `${lines.length} replacement${lines.length === 1 ? '' : 's'} at ${where}`,
        ...(signal ? { signal } : {}),
      });
      await writeRegularFile({ root, shown: target.shown, content: after, target: inspected });
      return `edited ${target.shown}: ${lines.length} replacement${lines.length === 1 ? '' : 's'} at ${where}`;
    },
  };
}

import type { LoopTool } from '../loop/index.js';
import { cutLine, linesThatFit, lineThatFits, type OutputLimit } from './output-limit.js';
import { readRegularFile } from './regular-file.js';
import { argumentsOf } from './tool-arguments.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** The most characters `read_file` returns in one call (about 16k tokens of code). */
export const READ_MAX_CHARS = 64_000;

/**
 * The lines of `text` from line `first` (1-based) that fit the result, each cut at
 * `LINE_MAX_CHARS`, with a note on how to read on. At least one line is returned while any is left,
 * so reading on always makes progress.
 */
export function readFromLine({
  text,
  first,
  limit,
}: {
  text: string;
  first: number;
  limit: OutputLimit;
}): string {
  const all = text.split('\n');
  const rest = all.slice(first - 1).map((line) => cutLine({ line }));
  let kept = linesThatFit({ lines: rest, maxChars: READ_MAX_CHARS, limit });
  let shown = rest.slice(0, kept);
  if (kept === 0 && rest.length > 0) {
    shown = [lineThatFits({ line: all[first - 1] ?? '', maxChars: READ_MAX_CHARS, limit })];
    kept = 1;
  }
  let result = shown.join('\n');
  if (kept < rest.length)
    result += `\n[… ${rest.length - kept} more lines; call read_file with offset ${first + kept} to read on]`;
  if (first > all.length) result = `[the file has ${all.length} lines; offset ${first} is past its end]`;
  return result;
}

/** The `read_file` tool: a regular text file of the project, from a line on, within the limits. */
export function createReadFileTool({ root, limit }: { root: string; limit: OutputLimit }): LoopTool {
  return {
    name: 'read_file',
    description: `Read a text file of the project. Returns at most ${READ_MAX_CHARS} characters; pass offset (a 1-based line) to read further. Lines longer than 2,000 characters are cut.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path relative to the project directory.' },
        offset: { type: 'integer', minimum: 1, description: 'First line to return (default 1).' },
      },
      required: ['path'],
    },
    source: 'builtin',
    async execute(args) {
      const { path, offset } = argumentsOf(args);
      const target = await resolveWorkspacePath({ root, path });
      const text = await readRegularFile({ root, shown: target.shown });
      const first = typeof offset === 'number' && offset >= 1 ? Math.floor(offset) : 1;
      return readFromLine({ text, first, limit });
    },
  };
}

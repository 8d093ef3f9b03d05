import type { Dirent } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { SpillwayError } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import { argumentsOf } from './tool-arguments.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** The most entries `list_directory` returns. */
export const LIST_MAX_ENTRIES = 500;

/** One entry as the model reads it: directories end in "/", files carry their size, links say so. */
async function describeEntry(directory: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) return `${entry.name}  (symbolic link)`;
  if (!entry.isFile()) return `${entry.name}  (not a regular file)`;
  const size = (await lstat(join(directory, entry.name)).catch(() => undefined))?.size;
  return `${entry.name}  ${size ?? '?'} bytes`;
}

/** The `list_directory` tool: a directory of the project, one entry a line. */
export function createListDirectoryTool({ root }: { root: string }): LoopTool {
  return {
    name: 'list_directory',
    description:
      'List a directory of the project: one entry a line, directories ending in "/", files with their size.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Directory relative to the project (default ".").' },
      },
    },
    source: 'builtin',
    async execute(args) {
      const { path = '.' } = argumentsOf(args);
      const target = await resolveWorkspacePath({ root, path });
      const directory = await opendir(target.real).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOTDIR') throw error;
        throw new SpillwayError(
          'invalid_argument',
          `${target.shown} is a file, not a directory; use read_file to read it`,
          { data: { reason: 'not_a_directory', path: target.shown } },
        );
      });
      const entries: Dirent[] = [];
      for await (const entry of directory) entries.push(entry);
      entries.sort((a, b) => a.name.localeCompare(b.name));
      const lines: string[] = [];
      for (const entry of entries.slice(0, LIST_MAX_ENTRIES))
        lines.push(await describeEntry(target.real, entry));
      if (entries.length > LIST_MAX_ENTRIES)
        lines.push(`[… ${entries.length - LIST_MAX_ENTRIES} more entries]`);
      return lines.length > 0 ? lines.join('\n') : `(${target.shown} is empty)`;
    },
  };
}

import type { Dirent } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { SpillwayError } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import { beneath, openProjectDirectory, type ProjectDirectory } from './project-files.js';
import { argumentsOf } from './tool-arguments.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** The most entries `list_directory` returns. */
export const LIST_MAX_ENTRIES = 500;

/** One entry as the model reads it: directories end in "/", files carry their size, links say so. */
async function describeEntry(directory: ProjectDirectory, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) return `${entry.name}  (symbolic link)`;
  if (!entry.isFile()) return `${entry.name}  (not a regular file)`;
  const size = (await lstat(beneath(directory, entry.name)).catch(() => undefined))?.size;
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
      // Listed as reached from the project directory, one name at a time, no link followed.
      const opened = await openProjectDirectory(root, target.shown).catch((error: unknown) => {
        const reason = (error as { data?: { reason?: string } }).data?.reason;
        if (reason !== 'not_a_directory') throw error;
        throw new SpillwayError(
          'invalid_argument',
          `${target.shown} is a file, not a directory; use read_file to read it`,
          { data: { reason: 'not_a_directory', path: target.shown } },
        );
      });
      const entries: Dirent[] = [];
      const lines: string[] = [];
      try {
        for await (const entry of await opendir(beneath(opened, '.'))) entries.push(entry);
        entries.sort((a, b) => a.name.localeCompare(b.name));
        for (const entry of entries.slice(0, LIST_MAX_ENTRIES))
          lines.push(await describeEntry(opened, entry));
      } finally {
        await opened.handle.close();
      }
      if (entries.length > LIST_MAX_ENTRIES)
        lines.push(`[… ${entries.length - LIST_MAX_ENTRIES} more entries]`);
      return lines.length > 0 ? lines.join('\n') : `(${target.shown} is empty)`;
    },
  };
}

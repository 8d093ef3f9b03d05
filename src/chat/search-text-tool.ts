import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { SpillwayError } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import { linesThatFit, type OutputLimit } from './output-limit.js';
import { readRegularFile } from './regular-file.js';
import { argumentsOf } from './tool-arguments.js';
import { resolveWorkspacePath } from './workspace-path.js';

/** The most matching lines `search_text` returns. */
export const SEARCH_MAX_MATCHES = 200;
/** Files larger than this are not searched (generated bundles, data). */
const SEARCH_MAX_FILE_BYTES = 1_000_000;
/** The most characters of a matching line shown. */
const SEARCH_LINE_MAX_CHARS = 300;
/** Directories search never enters. */
const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules', 'dist', 'build', 'coverage', '.venv']);

/** Regular files under `directory`, sorted, skipping build output; links are not followed. */
async function* walk(directory: string): AsyncGenerator<string> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) yield* walk(full);
    } else if (entry.isFile()) yield full;
  }
}

/** The `search_text` tool: a literal string in the project's text files. */
export function createSearchTextTool({ root, limit }: { root: string; limit: OutputLimit }): LoopTool {
  return {
    name: 'search_text',
    description: `Search the project's text files for a literal string (case-insensitive unless asked). Returns "path:line: text", at most ${SEARCH_MAX_MATCHES} lines; skips .git, node_modules and dist.`,
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'The text to find (not a regular expression).' },
        path: { type: 'string', description: 'Directory or file to search (default ".").' },
        case_sensitive: { type: 'boolean' },
      },
      required: ['query'],
    },
    source: 'builtin',
    async execute(args) {
      const { query, path = '.', case_sensitive: caseSensitive = false } = argumentsOf(args);
      if (typeof query !== 'string' || query === '')
        throw new SpillwayError('invalid_argument', 'give "query" as a non-empty string');
      const needle = caseSensitive ? query : query.toLowerCase();
      const start = await resolveWorkspacePath({ root, path });
      const isDirectory = (await stat(start.real)).isDirectory();
      const files = isDirectory ? walk(start.real) : [start.real];
      const matches: string[] = [];
      let more = false;
      for await (const file of files) {
        const shown = join(start.shown, relative(start.real, file));
        const text = await readRegularFile({ root, shown, maxBytes: SEARCH_MAX_FILE_BYTES }).catch(
          (error: unknown) => {
            // A named pipe or a device given as the path is an error; in a walk, such files are skipped.
            if (!isDirectory) throw error;
            return '';
          },
        );
        if (text.includes('\0')) continue;
        const lines = text.split('\n');
        for (let index = 0; index < lines.length; index++) {
          const line = lines[index] as string;
          if (!(caseSensitive ? line : line.toLowerCase()).includes(needle)) continue;
          if (matches.length >= SEARCH_MAX_MATCHES) {
            more = true;
            break;
          }
          matches.push(`${shown}:${index + 1}: ${line.trim().slice(0, SEARCH_LINE_MAX_CHARS)}`);
        }
        if (more) break;
      }
      const kept = linesThatFit({ lines: matches, maxChars: Number.POSITIVE_INFINITY, limit });
      const shownMatches = matches.slice(0, kept);
      if (more || kept < matches.length) shownMatches.push('[… more matches; narrow the query or the path]');
      return shownMatches.length > 0 ? shownMatches.join('\n') : `no match for ${JSON.stringify(query)}`;
    },
  };
}

/**
 * @module
 * The chat's file tools: read a file, list a directory, search text, write a file. Every path stays
 * inside the project directory; outputs are capped so one call cannot flood the window.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LoopTool } from '../loop/index.js';
import type { ConfirmAction } from './confirm-action.js';
import { linesThatFit, NO_OUTPUT_LIMIT, type OutputLimit } from './output-limit.js';
import { displayPath, workspacePath } from './workspace-path.js';

/** The most characters `read_file` returns in one call (about 16k tokens of code). */
export const READ_MAX_CHARS = 64_000;
/** The most entries `list_directory` returns. */
export const LIST_MAX_ENTRIES = 500;
/** The most matching lines `search_text` returns. */
export const SEARCH_MAX_MATCHES = 200;
/** Files larger than this are not searched (generated bundles, data). */
const SEARCH_MAX_FILE_BYTES = 1_000_000;
/** Directories search never enters. */
const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules', 'dist', 'build', 'coverage', '.venv']);

function argumentsOf(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
}

function readFileTool(root: string, limit: OutputLimit): LoopTool {
  return {
    name: 'read_file',
    description: `Read a text file of the project. Returns at most ${READ_MAX_CHARS} characters; pass offset (a 1-based line) to read further.`,
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
      const full = workspacePath({ root, path });
      const lines = (await readFile(full, 'utf8')).split('\n');
      const first = typeof offset === 'number' && offset >= 1 ? Math.floor(offset) : 1;
      const rest = lines.slice(first - 1);
      const kept = linesThatFit({ lines: rest, maxChars: READ_MAX_CHARS, limit });
      let text = rest.slice(0, kept).join('\n');
      const next = first + kept;
      if (kept < rest.length)
        text += `\n[… ${rest.length - kept} more lines; call read_file with offset ${next} to read on]`;
      return text;
    },
  };
}

function listDirectoryTool(root: string): LoopTool {
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
      const full = workspacePath({ root, path });
      const entries = (await readdir(full, { withFileTypes: true })).sort((a, b) =>
        a.name.localeCompare(b.name),
      );
      const lines: string[] = [];
      for (const entry of entries.slice(0, LIST_MAX_ENTRIES)) {
        if (entry.isDirectory()) lines.push(`${entry.name}/`);
        else
          lines.push(
            `${entry.name}  ${(await stat(join(full, entry.name)).catch(() => undefined))?.size ?? '?'} bytes`,
          );
      }
      if (entries.length > LIST_MAX_ENTRIES)
        lines.push(`[… ${entries.length - LIST_MAX_ENTRIES} more entries]`);
      return lines.length > 0 ? lines.join('\n') : `(${displayPath(root, full)} is empty)`;
    },
  };
}

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

function searchTextTool(root: string, limit: OutputLimit): LoopTool {
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
      if (typeof query !== 'string' || query === '') throw new Error('give "query" as a non-empty string');
      const needle = caseSensitive ? query : query.toLowerCase();
      const start = workspacePath({ root, path });
      const files = (await stat(start)).isDirectory() ? walk(start) : [start];
      const matches: string[] = [];
      let more = false;
      for await (const file of files) {
        const info = await stat(file).catch(() => undefined);
        if (!info || info.size > SEARCH_MAX_FILE_BYTES) continue;
        const text = await readFile(file, 'utf8').catch(() => '');
        if (text.includes('\0')) continue;
        const lines = text.split('\n');
        for (let index = 0; index < lines.length; index++) {
          const line = lines[index] as string;
          if (!(caseSensitive ? line : line.toLowerCase()).includes(needle)) continue;
          if (matches.length >= SEARCH_MAX_MATCHES) {
            more = true;
            break;
          }
          matches.push(`${displayPath(root, file)}:${index + 1}: ${line.trim().slice(0, 300)}`);
        }
        if (more) break;
      }
      const kept = linesThatFit({ lines: matches, maxChars: Number.POSITIVE_INFINITY, limit });
      const shown = matches.slice(0, kept);
      if (more || kept < matches.length) shown.push('[… more matches; narrow the query or the path]');
      return shown.length > 0 ? shown.join('\n') : `no match for ${JSON.stringify(query)}`;
    },
  };
}

function writeFileTool(root: string, confirm: ConfirmAction): LoopTool {
  return {
    name: 'write_file',
    description: 'Write a text file of the project (created or replaced). The user is asked first.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path relative to the project directory.' },
        content: { type: 'string', description: 'The whole new content of the file.' },
      },
      required: ['path', 'content'],
    },
    source: 'builtin',
    async execute(args, { signal }) {
      const { path, content } = argumentsOf(args);
      if (typeof content !== 'string') throw new Error('give "content" as a string');
      const full = workspacePath({ root, path });
      const shown = displayPath(root, full);
      const allowed = await confirm({
        tool: 'write_file',
        summary: `write ${shown} (${Buffer.byteLength(content)} bytes)`,
        ...(signal ? { signal } : {}),
      });
      if (!allowed) throw new Error(`the user did not allow writing ${shown}; ask them or do something else`);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content);
      return `wrote ${shown} (${Buffer.byteLength(content)} bytes)`;
    },
  };
}

/**
 * The file tools, acting inside `root`. `write_file` asks `confirm` before it writes; `read_file` and
 * `search_text` return at most what `outputLimit` allows.
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
    readFileTool(root, outputLimit),
    listDirectoryTool(root),
    searchTextTool(root, outputLimit),
    writeFileTool(root, confirm),
  ];
}

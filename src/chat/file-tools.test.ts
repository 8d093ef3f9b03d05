import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateTokens, SpillwayError } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import type { ActionRequest } from './confirm-action.js';
import { createFileTools, READ_MAX_CHARS } from './file-tools.js';

function project(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'spillway-tools-')));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), 'export const retryLimit = 3;\n// TODO: tune\n');
  writeFileSync(join(root, 'README.md'), '# Demo\nRetry twice.\n');
  writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), 'retry everywhere');
  return root;
}

function tools(root: string, answer = false) {
  const asked: ActionRequest[] = [];
  const list = createFileTools({
    root,
    confirm: async (request) => {
      asked.push(request);
      return answer;
    },
  });
  const byName = (name: string) => list.find((tool) => tool.name === name) as LoopTool;
  const run = (name: string, args: unknown) => byName(name).execute(args, { callId: 'call_1' });
  return { run, asked };
}

describe('the chat file tools', () => {
  it('reads a file, and says how to read on when it is cut', async () => {
    const root = project();
    const { run } = tools(root);
    expect(await run('read_file', { path: 'src/a.ts' })).toBe(
      'export const retryLimit = 3;\n// TODO: tune\n',
    );
    writeFileSync(
      join(root, 'big.txt'),
      Array.from({ length: 20_000 }, (_, index) => `line ${index}`).join('\n'),
    );
    const text = (await run('read_file', { path: 'big.txt' })) as string;
    expect(text.length).toBeLessThan(READ_MAX_CHARS + 200);
    expect(text).toMatch(/more lines; call read_file with offset \d+ to read on\]$/);
    const offset = Number(/offset (\d+)/.exec(text)?.[1]);
    expect(await run('read_file', { path: 'big.txt', offset })).toMatch(new RegExp(`^line ${offset - 1}\\n`));
  });

  it('stops a result at the output limit in estimated tokens, and says where to read on', async () => {
    const root = project();
    writeFileSync(
      join(root, 'log.txt'),
      Array.from({ length: 2_000 }, (_, index) => `event ${index} ok`).join('\n'),
    );
    const [readFile] = createFileTools({
      root,
      confirm: async () => false,
      outputLimit: { tokens: () => 500 },
    });
    const text = (await readFile?.execute({ path: 'log.txt' }, { callId: 'c' })) as string;
    expect(estimateTokens(text).total).toBeLessThan(560);
    expect(text).toMatch(/^event 0 ok\n/);
    expect(text).toMatch(/more lines; call read_file with offset \d+ to read on\]$/);
  });

  it('refuses paths outside the project directory', async () => {
    const { run } = tools(project());
    await expect(run('read_file', { path: '../etc/passwd' })).rejects.toThrow(
      /outside the project directory/,
    );
    await expect(run('list_directory', { path: '/' })).rejects.toThrow(/outside the project directory/);
    await expect(run('read_file', {})).rejects.toThrow(/give "path"/);
  });

  it('refuses links that lead out of the project, for reading and for writing', async () => {
    const root = project();
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'spillway-outside-')));
    symlinkSync('/etc/passwd', join(root, 'passwd'));
    symlinkSync(outside, join(root, 'linkdir'));
    const { run, asked } = tools(root, true);
    const reason = (pending: unknown) =>
      Promise.resolve(pending).then(
        () => 'accepted',
        (error: unknown) => (SpillwayError.isInstance(error) ? error.data.reason : String(error)),
      );
    expect(await reason(run('read_file', { path: 'passwd' }))).toBe('outside');
    expect(await reason(run('write_file', { path: 'linkdir/x.txt', content: 'x' }))).toBe('outside');
    expect(await reason(run('edit_file', { path: 'linkdir/x.txt', old_string: 'a', new_string: 'b' }))).toBe(
      'outside',
    );
    expect(await reason(run('search_text', { query: 'root', path: 'passwd' }))).toBe('outside');
    expect(await reason(run('list_directory', { path: 'linkdir' }))).toBe('outside');
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    expect(asked).toEqual([]);
  });

  it('asks with the real path when a link inside the project leads elsewhere inside it', async () => {
    const root = project();
    symlinkSync('src', join(root, 'code'));
    const { run, asked } = tools(root, true);
    expect(await run('write_file', { path: 'code/b.ts', content: 'export {};\n' })).toBe(
      'wrote src/b.ts (11 bytes)',
    );
    expect(asked[0]?.summary).toBe('write code/b.ts → src/b.ts (11 bytes, new file)');
    expect(readFileSync(join(root, 'src', 'b.ts'), 'utf8')).toBe('export {};\n');
  });

  it('accepts names that start with two dots', async () => {
    const root = project();
    writeFileSync(join(root, '..hidden'), 'kept here');
    const { run } = tools(root);
    expect(await run('read_file', { path: '..hidden' })).toBe('kept here');
  });

  it('refuses to read a named pipe or a directory, and does not hang', async () => {
    const root = project();
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const { run } = tools(root);
    await expect(run('read_file', { path: 'pipe' })).rejects.toThrow(
      /pipe is a named pipe; the file tools read regular files only/,
    );
    await expect(run('search_text', { query: 'x', path: 'pipe' })).rejects.toThrow(/named pipe/);
    await expect(run('read_file', { path: 'src' })).rejects.toThrow(
      /src is a directory; .*use list_directory/,
    );
    expect(await run('search_text', { query: 'retrylimit' })).toContain('src/a.ts:1:');
  });

  it('reads a one-line file of 160 KB in cut lines, and reading on makes progress', async () => {
    const root = project();
    const minified = 'var a=1;'.repeat(20_000);
    writeFileSync(join(root, 'bundle.min.js'), `${minified}\nsecond line\n`);
    const { run } = tools(root);
    const first = (await run('read_file', { path: 'bundle.min.js' })) as string;
    expect(first.startsWith('var a=1;var a=1;')).toBe(true);
    expect(first).toContain(
      `[… ${(minified.length - 2_000).toLocaleString('en-US')} more characters on this line]`,
    );
    expect(first).toContain('second line');
    const [limited] = createFileTools({
      root,
      confirm: async () => false,
      outputLimit: { tokens: () => 100 },
    });
    const cut = (await limited?.execute({ path: 'bundle.min.js' }, { callId: 'c' })) as string;
    expect(cut).toMatch(
      /more characters on this line\]\n\[… 2 more lines; call read_file with offset 2 to read on\]$/,
    );
    expect(await limited?.execute({ path: 'bundle.min.js', offset: 2 }, { callId: 'c' })).toBe(
      'second line\n',
    );
  });

  it('lists a directory by name, directories marked with a slash, files with their size', async () => {
    const { run } = tools(project());
    expect(await run('list_directory', {})).toBe('node_modules/\nREADME.md  20 bytes\nsrc/');
    expect(await run('list_directory', { path: 'src' })).toBe('a.ts  43 bytes');
  });

  it('searches text case-insensitively, skipping node_modules', async () => {
    const { run } = tools(project());
    expect(await run('search_text', { query: 'retry' })).toBe(
      'README.md:2: Retry twice.\nsrc/a.ts:1: export const retryLimit = 3;',
    );
    expect(await run('search_text', { query: 'retry', case_sensitive: true })).toBe(
      'src/a.ts:1: export const retryLimit = 3;',
    );
    expect(await run('search_text', { query: 'nothing like this' })).toBe('no match for "nothing like this"');
  });

  it('writes a file only when the user allows it', async () => {
    const root = project();
    const refused = tools(root, false);
    await expect(refused.run('write_file', { path: 'notes/n.md', content: 'hi' })).rejects.toThrow(
      /the user did not allow writing notes\/n\.md/,
    );
    expect(refused.asked).toEqual([
      {
        tool: 'write_file',
        summary: 'write notes/n.md (2 bytes, new file)',
        preview: '+++ notes/n.md (new file)\n+hi',
      },
    ]);
    const allowed = tools(root, true);
    expect(await allowed.run('write_file', { path: 'notes/n.md', content: 'hi' })).toBe(
      'wrote notes/n.md (2 bytes)',
    );
    expect(readFileSync(join(root, 'notes', 'n.md'), 'utf8')).toBe('hi');
  });
});

/**
 * `spillway chat`'s tools in a real terminal (tmux) against emulators started here: approvals with a
 * preview and "always", edit_file's diff, an answer typed ahead at a question, a command's output
 * streamed and its whole process group stopped by Ctrl+C and by the limit, links that lead out of
 * the project, a named pipe, a one-line file, and the emulator's default chat script.
 */
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
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Emulator, type Script, startEmulator } from '../../src/emulator/index.js';
import { createTerminal, hasTmux } from './tmux-terminal.js';

const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const terminal = createTerminal('chat-tools');
const { waitFor, type, keys } = terminal;
const emulators: Emulator[] = [];

afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close();
});
afterAll(() => terminal.close());

/** A project directory with a config pointing at a new emulator running `script`. */
async function project(
  script: Script | undefined,
  config: Record<string, unknown> = {},
  faults: Parameters<typeof startEmulator>[0]['faults'] = [],
) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'spillway-tools-e2e-')));
  const emulator = await startEmulator({
    profile: 'vllm',
    contextLength: 32_768,
    ...(script ? { script } : {}),
    faults,
  });
  emulators.push(emulator);
  writeFileSync(
    join(dir, 'spillway.config.json'),
    JSON.stringify({ base_url: `${emulator.url}/v1`, model: MODEL, ...config }),
  );
  return { dir, emulator };
}

function start(name: string, dir: string): void {
  terminal.start(name, {
    cwd: dir,
    args: [],
    env: { SPILLWAY_STORE: join(dir, 'sessions.db'), HOME: dir, XDG_CONFIG_HOME: dir },
  });
}

/** The contents of the tool messages the emulator received, in order. */
function toolResults(emulator: Emulator): string[] {
  const last = emulator.requests.filter((record) => record.chatNumber !== undefined).at(-1);
  const messages = (last?.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? [];
  return messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
}

/** Whether a process is still running (a zombie waiting to be reaped counts as gone). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let check = 0; check < 100; check++) {
    if (!running(pid)) return true;
    await sleep(50);
  }
  return false;
}

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });

describe.skipIf(!hasTmux)('spillway chat tools in a terminal', () => {
  it('shows a diff before an edit, keeps an answer typed ahead as the next message, and allows a tool always', async () => {
    const { dir, emulator } = await project({
      selectBy: 'request',
      replies: [
        call('edit_file', {
          path: 'a.ts',
          old_string: 'const retries = 3;',
          new_string: 'const retries = 5;',
        }),
        call('write_file', { path: 'notes/one.md', content: 'first\n' }),
        call('write_file', { path: 'notes/two.md', content: 'second\n' }),
        { text: 'Edited a.ts and wrote two notes.' },
        { text: 'Answered the message typed ahead.' },
      ],
    });
    writeFileSync(join(dir, 'a.ts'), 'export const name = "a";\nconst retries = 3;\n');
    start('edit', dir);
    await waitFor('edit', '› ');
    type('edit', 'Raise the retries.');
    let text = await waitFor(
      'edit',
      'allow: edit a.ts (1 replacement at line 2)? [y/N/a=always for edit_file]',
    );
    expect(text).toContain('  -const retries = 3;');
    expect(text).toContain('  +const retries = 5;');
    // Typed ahead: not an answer, so neither "no" nor lost.
    type('edit', 'and then summarize');
    await waitFor('edit', '· kept "and then summarize" as your next message');
    await waitFor('edit', 'allow: edit a.ts (1 replacement at line 2)? answer y, n or a [y/N/a]');
    type('edit', 'y');
    text = await waitFor(
      'edit',
      'allow: write notes/one.md (6 bytes, new file)? [y/N/a=always for write_file]',
    );
    expect(text).toContain('  +first');
    type('edit', 'a');
    text = await waitFor('edit', 'Answered the message typed ahead.');
    expect(text).toContain(
      '· write notes/two.md (7 bytes, new file) (allowed: write_file always, this session)',
    );
    expect(text).toContain('› and then summarize');
    expect(readFileSync(join(dir, 'a.ts'), 'utf8')).toBe('export const name = "a";\nconst retries = 5;\n');
    expect(readFileSync(join(dir, 'notes', 'two.md'), 'utf8')).toBe('second\n');
    const prompts = emulator.requests
      .map(
        (record) => (record.body as { messages?: Array<{ role: string; content: unknown }> })?.messages ?? [],
      )
      .at(-1)
      ?.filter((message) => message.role === 'user')
      .map((message) => message.content);
    expect(prompts).toEqual(['Raise the retries.', 'and then summarize']);
  }, 60_000);

  it('streams a command’s output, and Ctrl+C stops the command with everything it started', async () => {
    const { dir } = await project({
      selectBy: 'request',
      replies: [
        call('run_command', {
          command: 'for i in 1 2 3; do echo "line $i"; done; sleep 170 & echo "pid $!"; wait',
        }),
        { text: 'The command was cancelled.' },
      ],
    });
    start('run', dir);
    await waitFor('run', '› ');
    type('run', 'Run the slow check.');
    await waitFor('run', /allow: run for i in 1 2 3;.*\[y\/N\/a=always for run_command\]/);
    type('run', 'y');
    const text = await waitFor('run', /│ pid \d+/);
    expect(text).toMatch(/│ line 1\n {2}│ line 2\n {2}│ line 3\n/);
    const pid = Number(/│ pid (\d+)/.exec(text)?.[1]);
    expect(running(pid)).toBe(true);
    keys('run', 'C-c');
    await waitFor('run', '· cancelled');
    expect(await gone(pid)).toBe(true);
  }, 60_000);

  it('stops a command and what it started at the configured limit, and tells the model', async () => {
    const { dir, emulator } = await project(
      {
        selectBy: 'request',
        replies: [
          call('run_command', { command: 'sleep 170 & echo "pid $!"; wait' }),
          { text: 'It hit the limit.' },
        ],
      },
      { command_timeout_seconds: 1 },
    );
    start('limit', dir);
    await waitFor('limit', '› ');
    type('limit', 'Run it.');
    await waitFor('limit', 'allow: run sleep 170');
    type('limit', 'y');
    const text = await waitFor('limit', 'It hit the limit.');
    const pid = Number(/│ pid (\d+)/.exec(text)?.[1]);
    expect(await gone(pid)).toBe(true);
    expect(toolResults(emulator).at(-1)).toMatch(/^pid \d+\n\[stopped after 1 s, the command limit/);
  }, 60_000);

  it('refuses links out of the project and a named pipe, reads a one-line file in parts, and asks with the real path', async () => {
    const { dir, emulator } = await project({
      selectBy: 'request',
      replies: [
        call('read_file', { path: 'passwd' }),
        call('write_file', { path: 'linkdir/x.txt', content: 'x' }),
        call('read_file', { path: 'pipe' }),
        call('read_file', { path: 'bundle.min.js' }),
        call('write_file', { path: 'code/b.ts', content: 'export {};\n' }),
        { text: 'Done looking.' },
      ],
    });
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'spillway-outside-')));
    symlinkSync('/etc/passwd', join(dir, 'passwd'));
    symlinkSync(outside, join(dir, 'linkdir'));
    mkdirSync(join(dir, 'src'));
    symlinkSync('src', join(dir, 'code'));
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    writeFileSync(join(dir, 'bundle.min.js'), 'var a=1;'.repeat(20_000));
    start('links', dir);
    await waitFor('links', '› ');
    type('links', 'Look at the links.');
    let text = await waitFor('links', 'allow: write code/b.ts → src/b.ts (11 bytes, new file)?');
    expect(text).toContain(
      `✗ read_file: passwd is outside the project directory ${dir} (it leads to /etc/passwd through a symbolic link)`,
    );
    expect(text).toContain(`✗ write_file: linkdir/x.txt is outside the project directory ${dir}`);
    expect(text).toContain('✗ read_file: pipe is a named pipe; the file tools read regular files only');
    type('links', 'y');
    text = await waitFor('links', 'Done looking.');
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'src', 'b.ts'), 'utf8')).toBe('export {};\n');
    expect(toolResults(emulator)[3]).toMatch(/^(var a=1;){250} \[… 158,000 more characters on this line\]$/);
  }, 60_000);

  it('gets sensible calls from the emulator’s default script: list, read a listed file, search, answer', async () => {
    const { dir } = await project(undefined);
    writeFileSync(join(dir, 'README.md'), '# Demo\nRequests are retried twice.\n');
    start('default', dir);
    await waitFor('default', '› ');
    type('default', 'Where are requests retried?');
    const text = await waitFor(
      'default',
      /I listed the project, read README\.md and searched it for "requests"/,
    );
    expect(text).toContain('▸ list_directory {"path":"."}');
    expect(text).toContain('▸ read_file {"path":"README.md"}');
    expect(text).toContain('▸ search_text {"query":"requests"}');
    expect(text).not.toContain('✗');
  }, 60_000);
});

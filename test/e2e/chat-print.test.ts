/**
 * `spillway chat -p PROMPT`, spawned with pipes (stdout is not a TTY): the answer on stdout; errors
 * as a plain line and the JSON shape every command uses on stderr, with the shared exit codes;
 * write_file refused unless --yes.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { runProcess } from '../support/run-process.js';
import { closedPort } from './closed-port.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const MODEL = 'Qwen/Qwen2.5-7B-Instruct';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({
    profile: 'vllm',
    contextLength: 32_768,
    script: [
      {
        text: 'Writing the note.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'note.txt', content: 'ok\n' } }],
      },
      { text: 'Done: the note is written, or I was not allowed to.' },
    ],
  });
});
afterAll(async () => {
  await emulator?.close();
});

function project(config?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-print-'));
  if (config !== undefined) writeFileSync(join(dir, 'spillway.config.json'), JSON.stringify(config));
  return dir;
}

function chat(
  cwd: string,
  args: string[],
  input?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, SPILLWAY_STORE: join(cwd, 'sessions.db'), HOME: cwd };
  for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'SPILLWAY_API_KEY', 'XDG_CONFIG_HOME'])
    delete env[key];
  return runProcess(process.execPath, ['--import', loader, join(root, 'src/cli/bin.ts'), 'chat', ...args], {
    cwd,
    env,
    ...(input === undefined ? {} : { input }),
  });
}

/** The JSON error line and the plain line before it. */
function errorOf(stderr: string): { plain: string; error: { code: string; message: string } } {
  const lines = stderr.trim().split('\n');
  return { plain: lines.slice(0, -1).join('\n'), error: JSON.parse(lines.at(-1) as string).error };
}

describe('spillway chat -p', () => {
  it.concurrent('prints the answer on stdout, and refuses to write a file without --yes', async ({
    expect,
  }) => {
    const cwd = project({ base_url: `${emulator.url}/v1`, model: MODEL });
    const { status, stdout, stderr } = await chat(cwd, ['-p', 'Write a note.', '--json']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      reason: 'completed',
      text: 'Done: the note is written, or I was not allowed to.',
    });
    expect(existsSync(join(cwd, 'note.txt'))).toBe(false);
    const store = new SqliteSessionStore(join(cwd, 'sessions.db'));
    try {
      const tool = store
        .liveMessages(result.session_id)
        .find((stored) => stored.message.role === 'tool')?.message;
      expect(tool).toMatchObject({
        isError: true,
        content: expect.stringMatching(/did not allow writing note\.txt/),
      });
    } finally {
      store.close();
    }
  });

  it.concurrent('writes with --yes and prints just the answer', async ({ expect }) => {
    const cwd = project({ base_url: `${emulator.url}/v1`, model: MODEL });
    const { status, stdout } = await chat(cwd, ['-p', 'Write a note.', '--yes']);
    expect(status).toBe(0);
    expect(stdout).toBe('Done: the note is written, or I was not allowed to.\n');
    expect(readFileSync(join(cwd, 'note.txt'), 'utf8')).toBe('ok\n');
  });

  it.concurrent('reports an unreachable endpoint as a plain line and a provider_error, exit 1', async ({
    expect,
  }) => {
    const cwd = project();
    const port = await closedPort();
    const { status, stdout, stderr } = await chat(cwd, [
      '--base-url',
      `http://127.0.0.1:${port}/v1`,
      '--model',
      'm',
      '-p',
      'hi',
    ]);
    expect(status).toBe(1);
    expect(stdout).toBe('');
    const { plain, error } = errorOf(stderr);
    expect(plain).toMatch(/^spillway chat: /);
    expect(error.code).toBe('provider_error');
  });

  it.concurrent('exits 3 with context_truncated when the prompt cannot fit the window', async ({
    expect,
  }) => {
    const cwd = project({ base_url: `${emulator.url}/v1`, model: MODEL });
    const prompt = 'Please review this paste: '.padEnd(40_000, ' lorem ipsum dolor');
    // The server reports 32,768; a hard limit is the user's word over it.
    const { status, stderr } = await chat(cwd, ['--hard-context-length', '2048', '-p', prompt]);
    expect(status).toBe(3);
    const { plain, error } = errorOf(stderr);
    expect(plain).toMatch(/^spillway chat: .*your message was not kept$/);
    expect(error.code).toBe('context_truncated');
  });

  it.concurrent('exits 2 for a config with a typo, naming the file and the key', async ({ expect }) => {
    const cwd = project({ base_url: `${emulator.url}/v1`, modle: MODEL });
    const { status, stderr } = await chat(cwd, ['-p', 'hi']);
    expect(status).toBe(2);
    const { error } = JSON.parse(stderr.trim());
    expect(error.code).toBe('invalid_config');
    expect(error.message).toBe(
      `${join(cwd, 'spillway.config.json')}: modle: unknown key; use one of base_url, model, format, api_key, context_length, output_cap, ollama_num_ctx, reserve, safety_ratio, summary_max_tokens, cut_runway, overflow_patterns, mcp_servers, deferred_tools, max_iterations, system_prompt, command_timeout_seconds, stream_idle_timeout_seconds, first_chunk_timeout_seconds, prices`,
    );
  });

  it.concurrent('runs text piped in as the prompt, and refuses an empty one with exit 2', async ({
    expect,
  }) => {
    const cwd = project({ base_url: `${emulator.url}/v1`, model: MODEL });
    const { status, stdout } = await chat(cwd, ['--yes'], 'Write a note.\n');
    expect(status).toBe(0);
    expect(stdout).toBe('Done: the note is written, or I was not allowed to.\n');
    expect(readFileSync(join(cwd, 'note.txt'), 'utf8')).toBe('ok\n');
    const empty = await chat(cwd, [], '');
    expect(empty.status).toBe(2);
    expect(JSON.parse(empty.stderr.trim()).error).toMatchObject({ code: 'invalid_argument' });
  });

  it.concurrent('keeps no session of a run that got no reply, and keeps one that did', async ({ expect }) => {
    const cwd = project();
    const port = await closedPort();
    await chat(cwd, ['--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm', '-p', 'hi']);
    const ok = await chat(cwd, [
      '--base-url',
      `${emulator.url}/v1`,
      '--model',
      MODEL,
      '-p',
      'Write a note.',
      '--json',
    ]);
    const store = new SqliteSessionStore(join(cwd, 'sessions.db'));
    try {
      expect(store.listSessions().map((session) => session.id)).toEqual([JSON.parse(ok.stdout).session_id]);
    } finally {
      store.close();
    }
  });

  it.concurrent('exits 2 without a model', async ({ expect }) => {
    const { status, stderr } = await chat(project(), ['-p', 'hi']);
    expect(status).toBe(2);
    expect(JSON.parse(stderr.trim()).error.message).toMatch(/--model ID/);
  });
});

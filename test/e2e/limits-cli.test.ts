import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const running: Emulator[] = [];
const directories: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'spillway-limits-'));
  directories.push(directory);
  return directory;
}

/** Runs `spillway limits …` in a child process, asynchronously: the emulators answer from this one. */
function spillway(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // An empty store directory unless a test sets one: learned limits of this machine never leak in.
    const store = join(temporaryDirectory(), 'none.db');
    const child = spawn(tsx, ['src/cli/bin.ts', 'limits', ...args], {
      cwd: root,
      env: { ...process.env, SPILLWAY_STORE: store, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('spillway limits', () => {
  it('prints exactly the contract fields, from the catalog for a dated alias', async () => {
    const { status, stdout } = await spillway(['--model', 'gpt-4o-2024-08-06']);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      model: 'gpt-4o-2024-08-06',
      context_length: 128_000,
      output_cap: 16_384,
      source: { context_length: 'catalog', output_cap: 'catalog' },
    });
  });

  it('discovers a running server, and configuration wins over it', async () => {
    const ollama = await startEmulator({ profile: 'ollama', port: 0, contextLength: 6_144 });
    running.push(ollama);
    const discovered = await spillway(['--model', 'qwen2.5:7b', '--base-url', `${ollama.url}/v1`]);
    expect(JSON.parse(discovered.stdout)).toEqual({
      model: 'qwen2.5:7b',
      context_length: 6_144,
      output_cap: null,
      source: { context_length: 'discovery:/api/show', output_cap: 'fallback' },
    });
    const configured = await spillway([
      '--model',
      'qwen2.5:7b',
      '--base-url',
      `${ollama.url}/v1`,
      '--context-length',
      '4000',
      '--output-cap',
      '1000',
    ]);
    expect(JSON.parse(configured.stdout)).toMatchObject({
      context_length: 4_000,
      output_cap: 1_000,
      source: { context_length: 'config', output_cap: 'config' },
    });
  });

  it('reads learned limits from the session store', async () => {
    const path = join(temporaryDirectory(), 'sessions.db');
    const store = new SqliteSessionStore(path);
    store.saveLearnedLimit('glm5.2', { contextLength: 21_000 });
    store.close();
    const { stdout } = await spillway(['--model', 'glm5.2', '--provider', 'zai'], { SPILLWAY_STORE: path });
    expect(JSON.parse(stdout)).toEqual({
      model: 'glm5.2',
      context_length: 21_000,
      output_cap: null,
      source: { context_length: 'learned', output_cap: 'fallback' },
    });
    const ignored = await spillway(['--model', 'glm5.2', '--no-store'], { SPILLWAY_STORE: path });
    expect(JSON.parse(ignored.stdout).source.context_length).toBe('fallback');
  });

  it('exits 2 with a JSON error on bad input', async () => {
    const missing = await spillway([]);
    expect(missing.status).toBe(2);
    expect(JSON.parse(missing.stderr).error).toMatchObject({ code: 'invalid_argument' });
    const badUrl = await spillway(['--model', 'gpt-4o', '--base-url', 'not a url']);
    expect(badUrl.status).toBe(2);
    expect(JSON.parse(badUrl.stderr).error.message).toMatch(/is not a URL/);
    const badNumber = await spillway(['--model', 'gpt-4o', '--context-length', 'lots']);
    expect(badNumber.status).toBe(2);
    expect(badNumber.stdout).toBe('');
  });
});

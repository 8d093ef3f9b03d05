import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { runProcess } from '../support/run-process.js';
import { closedPort } from './closed-port.js';

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
  // An empty store directory unless a test sets one: learned limits of this machine never leak in.
  const store = join(temporaryDirectory(), 'none.db');
  return runProcess(tsx, ['src/cli/bin.ts', 'limits', ...args], {
    cwd: root,
    env: { ...process.env, SPILLWAY_STORE: store, ...env },
  });
}

describe('spillway limits', () => {
  it('prints every figure with its source, from the catalog for a dated alias', async () => {
    const { status, stdout } = await spillway(['--model', 'gpt-4o-2024-08-06']);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      model: 'gpt-4o-2024-08-06',
      context_length: 128_000,
      output_cap: 16_384,
      source: { context_length: 'catalog', output_cap: 'catalog' },
      figures: [{ source: 'catalog', context_length: 128_000, output_cap: 16_384 }],
    });
  });

  it('reports a server it cannot reach as an error of that source, exits 1, and still answers from the others', async () => {
    for (const baseUrl of ['http://127.0.0.1:9', `http://127.0.0.1:${await closedPort()}/v1`]) {
      const { status, stdout, stderr } = await spillway(['--model', 'gpt-4o', '--base-url', baseUrl]);
      expect(status).toBe(1);
      const report = JSON.parse(stdout);
      expect(report).toMatchObject({
        context_length: 128_000,
        source: { context_length: 'catalog' },
        errors: [{ source: 'discovery', code: 'unreachable', base_url: baseUrl.replace(/\/v1$/, '') }],
      });
      expect(JSON.parse(stderr).error).toMatchObject({
        code: 'provider_error',
        source: 'discovery',
        reason: 'unreachable',
      });
    }
  });

  it('discovers a running server over the catalog and soft config; a hard value wins over everything', async () => {
    const ollama = await startEmulator({ profile: 'ollama', port: 0, contextLength: 6_144 });
    running.push(ollama);
    const discovered = await spillway([
      '--model',
      'qwen2.5:7b',
      '--base-url',
      `${ollama.url}/v1`,
      '--context-length',
      '4000',
    ]);
    expect(discovered.status).toBe(0);
    expect(JSON.parse(discovered.stdout)).toMatchObject({
      model: 'qwen2.5:7b',
      context_length: 6_144,
      output_cap: null,
      source: { context_length: 'discovered:/api/show', output_cap: 'fallback' },
      figures: [
        { source: 'discovered:/api/show', context_length: 6_144 },
        { source: 'config', context_length: 4_000 },
      ],
      notices: [
        { kind: 'limit_overridden', figure: 'context_length', value: 6_144 },
        { kind: 'ollama_context_below_trained', contextLength: 6_144, trainedContextLength: 32_768 },
      ],
    });
    const hard = await spillway([
      '--model',
      'qwen2.5:7b',
      '--base-url',
      `${ollama.url}/v1`,
      '--hard-context-length',
      '4000',
      '--hard-output-cap',
      '1000',
    ]);
    expect(JSON.parse(hard.stdout)).toMatchObject({
      context_length: 4_000,
      output_cap: 1_000,
      source: { context_length: 'config:hard', output_cap: 'config:hard' },
    });
  });

  it('probes LiteLLM in front of vLLM: the window vLLM states beats what LiteLLM claims', async () => {
    const litellm = await startEmulator({ profile: 'litellm-vllm', port: 0, scale: 0.1 });
    running.push(litellm);
    const { status, stdout } = await spillway(['--model', 'glm5.2', '--base-url', `${litellm.url}/v1`]);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      context_length: 21_000,
      output_cap: 9_600,
      source: { context_length: 'probed', output_cap: 'claimed:/model/info' },
      figures: [
        { source: 'probed', context_length: 21_000 },
        { source: 'claimed:/model/info', context_length: 9_600, output_cap: 9_600 },
      ],
      notices: [{ kind: 'limit_overridden', value: 21_000, source: 'probed' }],
    });
    const probes = litellm.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(probes).toMatchObject([{ status: 400, maxTokens: 1_000_000_000, overflow: 'output_cap' }]);
    const unprobed = await spillway(['--model', 'glm5.2', '--base-url', `${litellm.url}/v1`, '--no-probe']);
    expect(JSON.parse(unprobed.stdout).source.context_length).toBe('claimed:/model/info');
  });

  it('reads stated limits from the session store', async () => {
    const path = join(temporaryDirectory(), 'sessions.db');
    const store = new SqliteSessionStore(path);
    store.saveLearnedLimit('glm5.2', { contextLength: 21_000 });
    store.close();
    const { stdout } = await spillway(['--model', 'glm5.2', '--provider', 'zai'], { SPILLWAY_STORE: path });
    expect(JSON.parse(stdout)).toEqual({
      model: 'glm5.2',
      context_length: 21_000,
      output_cap: null,
      source: { context_length: 'stated', output_cap: 'fallback' },
      figures: [{ source: 'stated', context_length: 21_000 }],
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
    const both = await spillway([
      '--model',
      'gpt-4o',
      '--context-length',
      '100',
      '--hard-context-length',
      '200',
    ]);
    expect(both.status).toBe(2);
    expect(JSON.parse(both.stderr).error.message).toMatch(/not both/);
  });
});

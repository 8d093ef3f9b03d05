/** `spillway serve` as a command: the listening line, serving, a clean stop on signals, bad flags. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = (extra: string[]) => ['--import', 'tsx', 'src/cli/bin.ts', 'serve', ...extra];
const dir = mkdtempSync(join(tmpdir(), 'spillway-serve-'));

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)));
  });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ profile: 'litellm-vllm', scale: 0.1 });
});
afterAll(async () => {
  await emulator?.close();
});

async function serve(store: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args(['--upstream', emulator.url, '--port', '0', '--store', store]), {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = await firstLine(child);
  expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
  return { child, url: line.trim().replace('listening on ', '') };
}

describe('spillway serve', () => {
  it('prints the bound address, fits requests, and exits 0 on SIGTERM and on SIGINT', async () => {
    // Both at once: each start pays for loading TypeScript through tsx.
    const servers = await Promise.all([serve(`sqlite:${join(dir, 'term.db')}`), serve('memory')]);
    for (const { url } of servers) {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-cli', maxRetries: 0 });
      const { response } = await client.chat.completions
        .create({ model: 'glm5.2', messages: [{ role: 'user', content: 'hi' }], max_tokens: 9_600 })
        .withResponse();
      // LiteLLM claims 9,600; the zero-cost probe finds the 21,000 vLLM enforces behind it.
      expect(response.headers.get('x-spillway-window')).toBe('21000');
    }
    expect(await (await fetch(`${servers[0]?.url}/healthz`)).json()).toMatchObject({
      status: 'ok',
      store: 'sqlite',
    });
    const exits = servers.map(({ child }) => exitCode(child));
    servers[0]?.child.kill('SIGTERM');
    servers[1]?.child.kill('SIGINT');
    expect(await Promise.all(exits)).toEqual([0, 0]);
  });

  it('fails with exit 2 and a JSON error on a missing upstream and on a bad config', () => {
    const run = (extra: string[]) =>
      spawnSync(process.execPath, args(extra), { cwd: root, encoding: 'utf8' });
    const missing = run(['--port', '0']);
    expect(missing.status).toBe(2);
    expect(JSON.parse(missing.stderr)).toMatchObject({
      error: { code: 'invalid_argument', message: expect.stringMatching(/--upstream URL is required/) },
    });
    const config = join(dir, 'bad.json');
    writeFileSync(config, JSON.stringify({ models: { 'glm5.2': { context_lenght: 1 } } }));
    const bad = run(['--upstream', emulator.url, '--config', config, '--store', 'memory']);
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toBe(
      `${config}: models["glm5.2"].context_lenght: unknown key; use one of context_length, output_cap, reserve, summary_max_tokens, cut_runway`,
    );
  });
});

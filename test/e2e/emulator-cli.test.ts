import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = (extra: string[]) => ['--import', 'tsx', 'src/cli/bin.ts', 'emulate', ...extra];

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

describe('spillway emulate', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`prints exactly the bound address, serves, and exits 0 on ${signal}`, async () => {
      const child = spawn(
        process.execPath,
        args(['--profile', 'llamacpp', '--port', '0', '--context-length', '2048']),
        {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const line = await firstLine(child);
      expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
      const url = line.trim().replace('listening on ', '');
      const props = (await (await fetch(`${url}/props`)).json()) as { n_ctx: number };
      expect(props.n_ctx).toBe(2_048);
      const exited = exitCode(child);
      child.kill(signal);
      expect(await exited).toBe(0);
    });
  }

  it('fails with exit 2 and a JSON error on bad flags', () => {
    const missing = spawnSync(process.execPath, args(['--port', '0']), { cwd: root, encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(JSON.parse(missing.stderr)).toMatchObject({
      error: { code: 'invalid_argument', message: expect.stringMatching(/--profile P is required/) },
    });
    const scale = spawnSync(process.execPath, args(['--profile', 'litellm-vllm', '--scale', '0']), {
      cwd: root,
      encoding: 'utf8',
    });
    expect(scale.status).toBe(2);
    expect(scale.stderr).toMatch(/--scale must be a number > 0/);
    const wording = spawnSync(process.execPath, args(['--profile', 'vllm', '--wording', 'v9']), {
      cwd: root,
      encoding: 'utf8',
    });
    expect(wording.status).toBe(2);
    expect(JSON.parse(wording.stderr)).toMatchObject({ error: { code: 'invalid_config' } });
  });
});

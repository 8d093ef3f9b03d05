/**
 * `spillway wrap` as a user runs it: a real `spillway` process that starts a proxy, runs the agent
 * pointed at it, passes the agent's exit code through and stops the proxy; or reuses a proxy that
 * already serves the same upstream on the port.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { runProcess } from '../support/run-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const agent = join(root, 'test', 'fixtures', 'wrap-agent.mjs');

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

/** Runs `spillway wrap` with its stdin at end of input, as `stdio: 'ignore'` would leave it. */
async function wrap(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { status, stdout, stderr } = await runProcess(
    process.execPath,
    ['--import', loader, join(root, 'src/cli/bin.ts'), 'wrap', ...args],
    { cwd: root, env: { ...process.env, OPENAI_BASE_URL: '' }, input: '' },
  );
  return { code: status, stdout, stderr };
}

async function emulator(): Promise<Emulator> {
  const started = await startEmulator({ profile: 'vllm' });
  open.push(started);
  return started;
}

describe('spillway wrap', () => {
  it('runs the agent against a proxy it starts, and exits with the agent’s code', async () => {
    const upstream = await emulator();
    const { code, stdout } = await wrap([
      '--upstream',
      upstream.url,
      '--port',
      '1',
      process.execPath,
      agent,
      '7',
    ]);
    expect(code).toBe(7);
    const seen = JSON.parse(stdout) as { base: string; status: number; estimate: string | null };
    expect(seen.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(seen.status).toBe(200);
    expect(Number(seen.estimate)).toBeGreaterThan(0);
    expect(upstream.requests.filter((record) => record.path === '/v1/chat/completions')).toHaveLength(1);
    // The proxy it started is gone.
    await expect(fetch(`${seen.base.replace(/\/v1$/, '')}/healthz`)).rejects.toThrow();
  });

  it('reuses a proxy already serving the same upstream on the port, and leaves it running', async () => {
    const upstream = await emulator();
    const proxy = await startProxy({ upstream: upstream.url, port: 0 });
    open.push(proxy);
    const { code, stdout } = await wrap([
      '--upstream',
      upstream.url,
      '--port',
      String(proxy.port),
      process.execPath,
      agent,
      '0',
    ]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { base: string }).base).toBe(`${proxy.url}/v1`);
    expect(proxy.metrics.fits.value()).toBeGreaterThan(0);
    expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
  });

  it('refuses a missing agent name and an unknown flag before it, with exit 2', async () => {
    expect((await wrap([])).code).toBe(2);
    const unknown = await wrap(['--nope', 'claude']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr.split('\n')[0] ?? '{}').error.code).toBe('invalid_argument');
  });
});

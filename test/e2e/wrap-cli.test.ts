/**
 * `spillway wrap` as a user runs it: a real `spillway` process that starts a proxy of its own, runs
 * the agent pointed at it, passes the agent's exit code through and stops the proxy; reuses a proxy
 * on `--port` only when it proves it holds the user's shared secret, so a listener squatting on the
 * port never receives a key; reports an agent that talks to the upstream directly while it runs.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { runProcess } from '../support/run-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const agent = join(root, 'test', 'fixtures', 'wrap-agent.mjs');
const bypassAgent = join(root, 'test', 'fixtures', 'wrap-bypass-agent.mjs');
const SECRET = 'a-shared-secret-of-this-test-0123456789';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

function secretFile(mode = 0o600): string {
  const path = join(mkdtempSync(join(tmpdir(), 'spillway-secret-')), 'proxy-secret');
  writeFileSync(path, `${SECRET}\n`);
  chmodSync(path, mode);
  return path;
}

/** Runs `spillway wrap` with its stdin at end of input, as `stdio: 'ignore'` would leave it. */
async function wrap(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { status, stdout, stderr } = await runProcess(
    process.execPath,
    ['--import', loader, join(root, 'src/cli/bin.ts'), 'wrap', ...args],
    { cwd: root, env: { ...process.env, OPENAI_BASE_URL: '' }, input: '' },
  );
  return { code: status, stdout, stderr };
}

/** `spillway wrap` of the test agent against `upstream`, asked to reuse a proxy on `port`. */
function wrapOnPort(
  upstream: string,
  port: number,
  secretMode?: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return wrap([
    '--upstream',
    upstream,
    '--port',
    String(port),
    '--secret-file',
    secretFile(secretMode),
    process.execPath,
    agent,
    '0',
  ]);
}

async function emulator(): Promise<Emulator> {
  const started = await startEmulator({ profile: 'vllm' });
  open.push(started);
  return started;
}

/** A listener on a free port that answers /healthz as a proxy would and records every request. */
async function squatter(
  upstream: string,
): Promise<{ port: number; seen: { url: string; headers: IncomingHttpHeaders; body: string }[] }> {
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ url: request.url ?? '', headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'application/json', 'x-spillway-proof': '0'.repeat(64) });
      response.end(JSON.stringify({ status: 'ok', upstream, store: 'memory' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, seen };
}

describe('spillway wrap', () => {
  it('runs the agent against a proxy of its own on a free port, and exits with the agent’s code', async () => {
    const upstream = await emulator();
    const { code, stdout, stderr } = await wrap(['--upstream', upstream.url, process.execPath, agent, '7']);
    expect(code).toBe(7);
    const seen = JSON.parse(stdout) as { base: string; status: number; estimate: string | null };
    expect(seen.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(seen.status).toBe(200);
    expect(Number(seen.estimate)).toBeGreaterThan(0);
    expect(upstream.requests.filter((record) => record.path === '/v1/chat/completions')).toHaveLength(1);
    expect(stderr).not.toContain('wrap_bypass');
    // The proxy it started is gone.
    await expect(fetch(`${seen.base.replace(/\/v1$/, '')}/healthz`)).rejects.toThrow();
  });

  it('reuses a proxy on --port that proves it holds the shared secret, and leaves it running', async () => {
    const upstream = await emulator();
    const proxy = await startProxy({ upstream: upstream.url, port: 0, ownerSecret: SECRET });
    open.push(proxy);
    const { code, stdout } = await wrapOnPort(upstream.url, proxy.port);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { base: string }).base).toBe(`${proxy.url}/v1`);
    expect(proxy.metrics.fits.value()).toBeGreaterThan(0);
    expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
  });

  it('does not reuse a proxy on --port that proves the secret but sends to another upstream', async () => {
    const upstream = await emulator();
    const elsewhere = await emulator();
    const proxy = await startProxy({ upstream: elsewhere.url, port: 0, ownerSecret: SECRET });
    open.push(proxy);
    const { code, stdout, stderr } = await wrapOnPort(upstream.url, proxy.port);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { base: string }).base).not.toBe(`${proxy.url}/v1`);
    expect(stderr).toContain('wrap_reuse_refused');
    expect(stderr).toContain(`sends to ${elsewhere.url}`);
    expect(upstream.requests.filter((record) => record.path === '/v1/chat/completions')).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
    expect(proxy.metrics.fits.value()).toBe(0);
  });

  it('never sends the agent’s key to a listener on --port that cannot prove the secret', async () => {
    const upstream = await emulator();
    const squat = await squatter(upstream.url);
    const { code, stdout, stderr } = await wrapOnPort(upstream.url, squat.port);
    expect(code).toBe(0);
    const base = (JSON.parse(stdout) as { base: string }).base;
    expect(base).not.toContain(`:${squat.port}/`);
    expect(stderr).toContain('wrap_reuse_refused');
    // The squatter was asked to prove the secret, and was sent nothing else.
    expect(squat.seen.map((request) => request.url)).toEqual(['/healthz']);
    const everything = JSON.stringify(squat.seen);
    expect(everything).not.toContain('sk-wrap');
    expect(everything).not.toContain(SECRET);
    expect(squat.seen[0]?.headers.authorization).toBeUndefined();
    expect(upstream.requests.filter((record) => record.path === '/v1/chat/completions')).toHaveLength(1);
  });

  it('refuses a shared secret file others may read, and reuses nothing then', async () => {
    const upstream = await emulator();
    const proxy = await startProxy({ upstream: upstream.url, port: 0, ownerSecret: SECRET });
    open.push(proxy);
    const { code, stdout, stderr } = await wrapOnPort(upstream.url, proxy.port, 0o644);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { base: string }).base).not.toBe(`${proxy.url}/v1`);
    expect(stderr).toContain('wrap_secret_refused');
    expect(proxy.metrics.fits.value()).toBe(0);
  });

  it('reports an agent that connects to the upstream itself while it is still running', async () => {
    const upstream = await emulator();
    const child = spawn(
      process.execPath,
      [
        '--import',
        loader,
        join(root, 'src/cli/bin.ts'),
        'wrap',
        '--upstream',
        upstream.url,
        process.execPath,
        bypassAgent,
        upstream.url,
      ],
      { cwd: root, env: { ...process.env, OPENAI_BASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    // Once wrap says the agent went around the proxy, the agent is told to stop; it would run a
    // minute otherwise (and exit 4).
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('directly, not through the proxy')) resolve();
      });
      child.once('close', () => resolve());
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('connected');
    const entry = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event: string; finding?: string })
      .find((line) => line.event === 'wrap_bypass');
    expect(entry?.finding).toBe('upstream_direct');
    expect(stderr).toContain(`connected to the upstream ${upstream.url}`);
  }, 90_000);

  it('--check reports whether the agent’s call reached the proxy, exit 0 when it did and 1 when not', async () => {
    const upstream = await emulator();
    const through = await wrap(['--upstream', upstream.url, '--check', process.execPath, agent, '0']);
    expect(through.code).toBe(0);
    const report = JSON.parse(through.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(report).toMatchObject({ arrived: true, requests: ['POST /v1/chat/completions'] });
    const around = await wrap([
      '--upstream',
      upstream.url,
      '--check',
      process.execPath,
      '-e',
      'process.exit(0)',
    ]);
    expect(around.code).toBe(1);
    expect(JSON.parse(around.stdout.trim())).toMatchObject({ arrived: false, requests: [] });
    expect(around.stderr).toContain('no request of it reached the proxy');
  });

  it('refuses a missing agent name and an unknown flag before it, with exit 2', async () => {
    expect((await wrap([])).code).toBe(2);
    const unknown = await wrap(['--nope', 'claude']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr.split('\n')[0] ?? '{}').error.code).toBe('invalid_argument');
  });
});

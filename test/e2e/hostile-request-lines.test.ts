/**
 * Hostile request lines and uploads against the servers Spillway runs (`spillway serve` and
 * `spillway emulate`): a request target the URL parser rejects is a 400 with a JSON error, never an
 * exit; a client that gives up half-way through its upload is logged as `client_aborted` and counted
 * as 499, not as an internal error or a 200.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { type ProxyLogEntry, startProxy } from '../../src/proxy/index.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { startJsonUpstream } from '../support/json-upstream.js';
import { rawRequest, startUpload } from '../support/raw-http.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});
afterAll(() => writeHostileResults(fileURLToPath(import.meta.url)));

/** Request targets WHATWG `new URL(target, base)` throws on (each one exited the proxy once). */
const BAD_TARGETS = [
  '//%zz/',
  'http://[/x',
  '//[/x',
  'http://a:b@[::1/x',
  'http://x:99999/',
  '//:/',
  '//x:-1/',
  'http://%/',
  '//x:65536/v1/chat/completions',
];

/** Request lines Node's own parser refuses (answered 400 before any handler runs). */
const MALFORMED_LINES = [
  'GET\r\n\r\n',
  'GET / HTTP/9.9\r\n\r\n',
  'G\u0000T / HTTP/1.1\r\nHost: x\r\n\r\n',
  `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
];

function line(method: string, target: string): string {
  return `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;
}

describe('request lines the URL parser rejects', () => {
  it('are answered 400 with a JSON error by the proxy, which keeps serving', async () => {
    const logs: ProxyLogEntry[] = [];
    const proxy = await startProxy({
      upstream: 'http://127.0.0.1:9',
      port: 0,
      store: 'memory',
      onLog: (entry) => logs.push(entry),
    });
    open.push(proxy);
    let answered = 0;
    for (const target of BAD_TARGETS)
      for (const method of ['GET', 'POST']) {
        const reply = await rawRequest(proxy.port, line(method, target));
        expect(reply.status, `${method} ${target}`).toBe(400);
        const body = JSON.parse(reply.body) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('invalid_url');
        answered++;
      }
    for (const bytes of MALFORMED_LINES) {
      const reply = await rawRequest(proxy.port, bytes);
      expect([400, 431]).toContain(reply.status);
      answered++;
    }
    const health = await fetch(`${proxy.url}/healthz`);
    const crashes = health.status === 200 ? 0 : 1;
    expect(crashes).toBe(0);
    expect(logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    expect(proxy.metrics.requests.value({ route: 'invalid', status: '400' })).toBe(BAD_TARGETS.length * 2);
    recordHostile('request_lines', { sent: answered, answered, crashes });
  });

  it('are answered 400 by the emulator, which keeps serving', async () => {
    const emulator = await startEmulator({ profile: 'vllm' });
    open.push(emulator);
    for (const target of BAD_TARGETS) {
      const reply = await rawRequest(emulator.port, line('GET', target));
      expect(reply.status, target).toBe(400);
    }
    const models = await fetch(`${emulator.url}/v1/models`);
    expect(models.status).toBe(200);
    recordHostile('request_lines', { sent: BAD_TARGETS.length, answered: BAD_TARGETS.length });
  });
});

describe('hostile paths', () => {
  it('never leave the upstream base path, however they are spelled', async () => {
    const upstream = await startJsonUpstream();
    open.push(upstream);
    const proxy = await startProxy({ upstream: `${upstream.url}/api`, port: 0, store: 'memory' });
    open.push(proxy);
    const targets = [
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/v1/..%2f..%2f..%2fetc/passwd',
      '/v1/models/..\\..\\secret',
      '//evil.example/v1/models',
      'http://evil.example/v1/models',
      '/v1/models?next=http://evil.example/',
      `/${'%2e%2e/'.repeat(200)}x`,
    ];
    for (const target of targets) {
      const reply = await rawRequest(proxy.port, line('GET', target));
      expect(reply.status, target).toBeGreaterThanOrEqual(200);
    }
    expect(upstream.seen).toHaveLength(targets.length);
    const left = upstream.seen.filter((seen) => !seen.startsWith('/api/'));
    expect(left).toEqual([]);
    recordHostile('request_lines', { hostile_paths: targets.length, left_base_path: left.length });
  });
});

describe('a client that aborts its upload', () => {
  it('is logged as client_aborted and counted as 499, not as an internal error or a 200', async () => {
    const logs: ProxyLogEntry[] = [];
    const proxy = await startProxy({
      upstream: 'http://127.0.0.1:9',
      port: 0,
      store: 'memory',
      onLog: (entry) => logs.push(entry),
    });
    open.push(proxy);
    const aborted = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (proxy.metrics.requests.value({ route: 'chat_completions', status: '499' }) === 3) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    for (let index = 0; index < 3; index++) {
      const socket = await startUpload(proxy.port, {
        path: '/v1/chat/completions',
        declared: 1_000_000,
        sent: Buffer.from(`{"model":"m","messages":[{"role":"user","content":"${'x'.repeat(10_000)}`),
      });
      socket.destroy();
    }
    await aborted;
    expect(logs.filter((entry) => entry.event === 'client_aborted')).toHaveLength(3);
    expect(logs.filter((entry) => entry.event === 'internal_error')).toEqual([]);
    const countedAs200 = proxy.metrics.requests.value({ route: 'chat_completions', status: '200' });
    expect(countedAs200).toBe(0);
    expect(proxy.metrics.requests.value({ route: 'chat_completions', status: '500' })).toBe(0);
    recordHostile('upload_aborts', {
      sent: 3,
      logged_client_aborted: logs.filter((entry) => entry.event === 'client_aborted').length,
      counted_as_200: countedAs200,
    });
  });
});

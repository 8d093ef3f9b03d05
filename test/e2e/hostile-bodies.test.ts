/**
 * Hostile request bodies against the proxy: nesting 10,000 levels deep (and a 32 MiB body of `[`),
 * bodies of every wrong shape, and large bodies sent together with a small one. Deep nesting is a
 * 400 `json_too_deep`, never a 500 "Maximum call stack size exceeded"; nothing is ever a 500; large
 * bodies never hold a small request back: it is answered before any of them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { startJsonUpstream } from '../support/json-upstream.js';
import { type ServeProcess, spawnServe } from '../support/spawn-serve.js';

const open: { close(): Promise<void> }[] = [];
const processes: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
  await Promise.all(processes.splice(0).map((item) => item.stop()));
});
afterAll(() => writeHostileResults(fileURLToPath(import.meta.url)));

function post(url: string, path: string, body: string | Buffer): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

const nested = (depth: number, leaf = '"x"') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
const chatWith = (fields: string) =>
  `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":16${fields}}`;

describe('bodies nested too deep', () => {
  it('are answered 400 json_too_deep wherever the nesting is, and a deep but sane body passes', async () => {
    const emulator = await startEmulator({ profile: 'vllm', contextLength: 8_192 });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0, store: 'memory' });
    open.push(proxy);
    const deep = nested(10_000);
    const bodies = [
      chatWith(`,"extra":${deep}`),
      chatWith(`,"tools":[{"type":"function","function":{"name":"f","parameters":${nested(10_000, '{}')}}}]`),
      `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi","x":${deep}}]}]}`,
      `{"model":"m","messages":${deep}}`,
      deep,
      '['.repeat(32 * 1024 * 1024 - 1024),
      '{"a":'.repeat(100_000),
    ];
    let answered400 = 0;
    for (const body of bodies) {
      const response = await post(proxy.url, '/v1/chat/completions', body);
      expect(response.status).toBe(400);
      answered400++;
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('json_too_deep');
      expect(error.message).toMatch(/deeper than 512 levels/);
    }
    // The place is a byte offset, whatever characters come before it (the body itself is level 1).
    const prefix = '{"model":"m","messages":[{"role":"user","content":"déjà vu ✓"}],"x":';
    const placed = await post(proxy.url, '/v1/chat/completions', `${prefix}${nested(600)}}`);
    if (placed.status === 400) answered400++;
    const { error: where } = (await placed.json()) as { error: { message: string } };
    expect(where.message).toContain(`(byte ${Buffer.byteLength(prefix) + 511} is level 513)`);
    const sane = await post(proxy.url, '/v1/chat/completions', chatWith(`,"metadata":{"x":${nested(400)}}`));
    expect(sane.status).toBe(200);
    const answered500 = proxy.metrics.requests.value({ route: 'chat_completions', status: '500' });
    expect(answered500).toBe(0);
    // Counted from the answers: the proxy's own counter counts a request when its response closes,
    // which may come after the client has read it.
    recordHostile('deep_bodies', {
      sent: bodies.length + 2,
      answered_400: answered400,
      deep_but_sane_answered_200: 1,
      answered_500: answered500,
    });
  });
});

describe("the command line's file readers", () => {
  it('refuse a file nested too deep with exit 2 and a JSON error, never a stack overflow', () => {
    const directory = mkdtempSync(join(tmpdir(), 'spillway-deep-'));
    const deep = join(directory, 'deep.json');
    writeFileSync(deep, chatWith(`,"extra":${nested(10_000)}`));
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
      });
    const runs = [
      { args: ['estimate', deep], code: 'invalid_transcript' },
      { args: ['fit', deep, '--context-length', '8192'], code: 'invalid_transcript' },
      {
        args: ['serve', '--upstream', 'http://127.0.0.1:9', '--config', deep, '--store', 'memory'],
        code: 'invalid_config',
      },
    ];
    // A config whose keys are each valid but impossible together fails at startup, naming both.
    const impossible = join(directory, 'impossible.json');
    writeFileSync(impossible, JSON.stringify({ context_length: 1_000, reserve: 100_000 }));
    const started = run([
      'serve',
      '--upstream',
      'http://127.0.0.1:9',
      '--config',
      impossible,
      '--store',
      'memory',
    ]);
    expect(started.status).toBe(2);
    expect(JSON.parse(started.stderr).error).toMatchObject({
      code: 'invalid_config',
      message: expect.stringMatching(/reserve \(100000\).*context_length \(1000\)/),
    });
    for (const { args, code } of runs) {
      const result = run(args);
      expect(result.status, result.stderr).toBe(2);
      const { error } = JSON.parse(result.stderr.trim().split('\n').at(-1) as string) as {
        error: { code: string; message: string };
      };
      expect(error.code).toBe(code);
      expect(error.message).toMatch(/deeper than 512 levels/);
    }
    recordHostile('deep_bodies', { cli_files: runs.length, cli_exit_2: runs.length });
  });
});

describe('bodies of every wrong shape', () => {
  it('are never a 500, and the proxy keeps serving', async () => {
    const emulator = await startEmulator({ profile: 'vllm', contextLength: 8_192 });
    open.push(emulator);
    const proxy = await startProxy({ upstream: emulator.url, port: 0, store: 'memory' });
    open.push(proxy);
    const bodies: Array<string | Buffer> = [
      '',
      'null',
      '[]',
      '"text"',
      '{',
      Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
      '{"messages":null}',
      '{"messages":[null]}',
      '{"messages":[{"role":"user","content":{"not":"a string"}}]}',
      '{"messages":[{"role":"tool","content":"orphan"}]}',
      '{"model":{"a":1},"messages":[{"role":"user","content":"hi"}]}',
      '{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":"lots"}',
      '{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":-5}',
      '{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":1e308}',
      '{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":1,"function":null}]}]}',
      '{"model":"m","messages":[{"role":"user","content":"\\ud800"}]}',
      '{"__proto__":{"polluted":true},"model":"m","messages":[{"role":"user","content":"hi"}]}',
      `{"model":"m","messages":[${'{"role":"user","content":"hi"},'.repeat(50_000)}{"role":"user","content":"end"}]}`,
    ];
    const statuses: number[] = [];
    for (const body of bodies) {
      const response = await post(proxy.url, '/v1/chat/completions', body);
      await response.arrayBuffer();
      statuses.push(response.status);
      expect(response.status, String(body).slice(0, 80)).toBeLessThan(500);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
    recordHostile('malformed_bodies', {
      sent: bodies.length,
      answered_500: statuses.filter((status) => status >= 500).length,
    });
  });
});

/** A tool-using history of about `mebibytes` MiB: 100 KiB tool outputs. */
function largeHistory(mebibytes: number, seed: number): Buffer {
  const output = 'lorem ipsum dolor sit amet, consectetur adipiscing elit 12345\n'.repeat(1_650);
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: `Task ${seed}` },
  ];
  for (let round = 0; round < mebibytes * 10; round++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: `call_${round}`, type: 'function', function: { name: 'read_file', arguments: '{}' } },
      ],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${round}`, content: `${seed}:${round}\n${output}` });
  }
  return Buffer.from(JSON.stringify({ model: 'big-model', messages, max_tokens: 64 }));
}

/**
 * A POST whose last byte is held back: `ready` once the rest is written, `release()` sends the last
 * byte, `answered` resolves with the status once the answer is read. Releasing several at once makes
 * their bodies complete at the same moment at the proxy.
 */
function heldPost(
  url: string,
  body: Buffer,
): { ready: Promise<void>; release(): void; answered: Promise<number> } {
  let request: ReturnType<typeof httpRequest> | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const answered = new Promise<number>((resolve, reject) => {
    request = httpRequest(
      `${url}/v1/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.write(body.subarray(0, body.length - 1), () => markReady());
  });
  return { ready, release: () => request?.end(body.subarray(body.length - 1)), answered };
}

describe('large bodies with a small one', () => {
  it('never hold the small one back: it waits for at most the one of four 31 MiB bodies being worked on', async () => {
    const upstream = await startJsonUpstream();
    open.push(upstream);
    // The window from the config: discovery has a deadline, and this test keeps the upstream busy.
    const config = join(mkdtempSync(join(tmpdir(), 'spillway-bodies-')), 'proxy.json');
    writeFileSync(config, JSON.stringify({ context_length: 100_000 }));
    const serve = await spawnServe(['--upstream', upstream.url, '--store', 'memory', '--config', config]);
    processes.push(serve);
    // One small request first, so that what the proxy does once (discovery, loading its counters)
    // is done: the race below is between large bodies and a small one, not a cold start.
    const warmUp = await fetch(`${serve.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chatWith(''),
    });
    expect(warmUp.status).toBe(200);
    await warmUp.arrayBuffer();
    const warmChats = upstream.chats.length;
    const large = Array.from({ length: 4 }, (_, index) => largeHistory(31, index));
    const posts = [
      ...large.map((body) => heldPost(serve.url, body)),
      heldPost(serve.url, Buffer.from(chatWith(''))),
    ];
    await Promise.all(posts.map(({ ready }) => ready));
    // The proxy reads what was sent; then every body completes at once, the small one last.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const order: string[] = [];
    const answered = posts.map(({ answered }, index) =>
      answered.then((status) => {
        order.push(index < large.length ? `large-${index}` : 'small');
        return status;
      }),
    );
    for (const post of posts) post.release();
    const statuses = await Promise.all(answered);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // Large bodies are worked on one at a time, yielding between steps: the small request waits at
    // most for the one large body already being worked on when its last byte arrives (on a loaded
    // machine the first large body can be that far along), never for the others.
    const smallAt = upstream.chats.slice(warmChats).findIndex((chat) => chat.bytes < 10_000);
    expect(smallAt).toBeGreaterThanOrEqual(0);
    expect(smallAt).toBeLessThanOrEqual(1);
    expect(order.indexOf('small')).toBeLessThanOrEqual(1);
    recordHostile('large_bodies', {
      large_bodies: large.length,
      large_body_mib: 31,
      large_upstream_requests_before_small: smallAt,
      answered_before_small: order.indexOf('small'),
    });
  }, 120_000);
});

/**
 * Conversations that look alike to the proxy: the same system prompt, the same first user message,
 * the same tool-call ids (`call_1`, `call_2`, … as seeded or counting clients make them), different
 * private tool outputs. Through a real proxy on loopback with each store (memory, SQLite, Redis),
 * conversation A runs until its old tool outputs are compressed and stored; then conversation B
 * runs. Not one byte of A's outputs may reach the upstream in B's requests, whether both send the
 * same API key or each its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

let redis: RedisServer;
const directory = mkdtempSync(join(tmpdir(), 'spillway-hostile-conversations-'));
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(directory, { recursive: true, force: true });
  writeHostileResults(fileURLToPath(import.meta.url));
});

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

const ROUNDS = 14;

/** Tool output lines that exist only in one conversation: `name` makes every line unique to it. */
function privateOutput(name: string, round: number): string {
  return Array.from(
    { length: 40 },
    (_, line) =>
      `${name}-private round ${round} line ${line}: ledger entry ${name.length * 7919 + round * 104_729 + line}`,
  ).join('\n');
}

type WireMessage = Record<string, unknown>;

/** The history a client resends after `rounds` tool rounds: the same head and ids for everyone. */
function history(name: string, rounds: number): WireMessage[] {
  const messages: WireMessage[] = [
    { role: 'system', content: 'You are a bookkeeping agent.' },
    { role: 'user', content: 'Reconcile the ledger.' },
  ];
  for (let round = 1; round <= rounds; round++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${round}`,
          type: 'function',
          function: { name: 'read_ledger', arguments: `{"page":${round}}` },
        },
      ],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${round}`, content: privateOutput(name, round) });
  }
  return messages;
}

async function send(url: string, apiKey: string, messages: WireMessage[]): Promise<void> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: 'ledger-model', messages, max_tokens: 256 }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

/** Bytes of A's private lines found in the chat bodies the upstream received since `from`. */
function leakedBytes(emulator: Emulator, from: number, secretLines: string[]): number {
  let bytes = 0;
  for (const record of emulator.requests.slice(from)) {
    if (record.path !== '/v1/chat/completions') continue;
    const text = JSON.stringify(record.body);
    for (const line of secretLines) if (text.includes(line)) bytes += Buffer.byteLength(line);
    // Shorter pieces too: a truncated level cuts long lines, an outline keeps one line.
    if (text.includes('alpha-private')) bytes += 'alpha-private'.length;
  }
  return bytes;
}

/** Whether the upstream saw a compressed (not full) tool output in any of these requests. */
function sawCompression(emulator: Emulator, from: number): boolean {
  return emulator.requests
    .slice(from)
    .some((record) => /recall #\d+|\[elided #\d+/.test(JSON.stringify(record.body ?? '')));
}

const STORES: Array<{ name: string; spec: () => string }> = [
  { name: 'memory', spec: () => 'memory' },
  { name: 'sqlite', spec: () => `sqlite:${join(directory, `proxy-${Date.now()}.db`)}` },
  { name: 'redis', spec: () => `${redis.url}/3` },
];

describe.each(STORES)('conversations with shared heads and ids, $name store', ({ name, spec }) => {
  for (const keys of [
    { label: 'the same API key', a: 'sk-shared-tenant', b: 'sk-shared-tenant' },
    { label: 'different API keys', a: 'sk-tenant-alpha', b: 'sk-tenant-bravo' },
  ])
    it(`never send A's tool outputs in B's requests (${keys.label})`, async () => {
      const emulator = await startEmulator({ profile: 'vllm', contextLength: 6_000 });
      open.push(emulator);
      const proxy = await startProxy({ upstream: emulator.url, port: 0, store: spec() });
      open.push(proxy);
      for (let rounds = 1; rounds <= ROUNDS; rounds++)
        await send(proxy.url, keys.a, history('alpha', rounds));
      // A's own later requests went out with its old outputs compressed: there is stored state to leak.
      expect(sawCompression(emulator, 0)).toBe(true);
      const before = emulator.requests.length;
      const secretLines = Array.from({ length: ROUNDS }, (_, round) =>
        privateOutput('alpha', round + 1).split('\n'),
      ).flat();
      for (let rounds = 1; rounds <= ROUNDS; rounds++)
        await send(proxy.url, keys.b, history('bravo', rounds));
      const leaked = leakedBytes(emulator, before, secretLines);
      expect(leaked).toBe(0);
      recordHostile('shared_heads_and_ids', {
        [`${name}_conversations`]: 2,
        [`${name}_requests`]: ROUNDS * 2,
        cross_conversation_bytes: leaked,
      });
    });
});

/**
 * One client trying to set the window for everyone. The upstream echoes client input in its 400s,
 * as vLLM's request validation does (pydantic quotes the rejected value), so a client can make it
 * answer with an overflow sentence of its own choosing. Through a real proxy on loopback: a window of
 * 2,000 tokens said on one key must not cut another key's conversation; a window of 10,000,000 must
 * not switch fitting off for anyone; two keys agreeing move everyone's window only a bounded step;
 * and what is stored is a hash of each key, with an expiry, per upstream.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { type ChatBehaviour, startJsonUpstream } from '../support/json-upstream.js';

const directory = mkdtempSync(join(tmpdir(), 'spillway-hostile-limits-'));
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
  writeHostileResults(fileURLToPath(import.meta.url));
});

const WINDOW = 32_768;
const MODEL = 'served-model';
/** The window is configured (no discovery) so the only other source is what the upstream says. */
const config = parseProxyConfig({ context_length: WINDOW, probe_limits: false });

/**
 * vLLM-like: an unknown `reasoning_effort` is refused with pydantic's literal error, which quotes the
 * client's value; anything else gets a short reply (without usage, so no count is anchored on it).
 */
const echoingUpstream: ChatBehaviour = (_request, body, response) => {
  const parsed = JSON.parse(body.toString('utf8')) as { reasoning_effort?: string };
  const effort = parsed.reasoning_effort;
  if (effort !== undefined && !['low', 'medium', 'high'].includes(effort)) {
    const text = JSON.stringify({
      object: 'error',
      message: `[{'type': 'literal_error', 'loc': ('body', 'reasoning_effort'), 'msg': "Input should be 'low', 'medium' or 'high'", 'input': '${effort}'}]`,
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    response.writeHead(400, { 'content-type': 'application/json' }).end(text);
    return;
  }
  const reply = {
    id: 'chatcmpl-echo',
    object: 'chat.completion',
    created: 1,
    model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
};

/** A conversation of about `tokens` tokens (English prose, four characters a token). */
function conversation(name: string, tokens: number): Array<{ role: string; content: string }> {
  const turns: Array<{ role: string; content: string }> = [{ role: 'system', content: 'You are terse.' }];
  // 42 times 48 characters: about 500 tokens a turn.
  for (let turn = 0; turn * 500 < tokens; turn++) {
    turns.push({
      role: 'user',
      content: `${name} turn ${turn}: ${'the ledger shows a balance that needs checking '.repeat(42)}`,
    });
    turns.push({ role: 'assistant', content: `noted ${turn}` });
  }
  turns.push({ role: 'user', content: `${name}: summarize.` });
  return turns;
}

interface Sent {
  status: number;
  window: number;
  estimate: number;
  cut: string;
}

async function send(url: string, key: string, body: Record<string, unknown>): Promise<Sent> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: MODEL, max_tokens: 1_000, ...body }),
  });
  await response.arrayBuffer();
  return {
    status: response.status,
    window: Number(response.headers.get('x-spillway-window')),
    estimate: Number(response.headers.get('x-spillway-estimate')),
    cut: response.headers.get('x-spillway-cut') ?? '',
  };
}

/**
 * The attack as a careful client makes it: its own request's size learned from a first answer
 * (`x-spillway-estimate`), then the overflow sentence with figures that agree with it.
 */
async function claimWindow(url: string, key: string, window: number): Promise<void> {
  const messages = conversation(`attacker-${key.length}-${window}`, 3_000);
  const { estimate } = await send(url, key, { messages });
  const sentence = `This model's maximum context length is ${window} tokens. However, you requested ${estimate + 1_000} tokens (${estimate} in the messages, 1000 in the completion). Please reduce the length of the messages or completion.`;
  await send(url, key, { messages, reasoning_effort: sentence });
}

async function proxyFor(store: string) {
  const upstream = await startJsonUpstream({ chat: echoingUpstream });
  open.push(upstream);
  const proxy = await startProxy({ upstream: upstream.url, port: 0, store, config });
  open.push(proxy);
  return proxy;
}

describe('a client that makes the upstream say a window', () => {
  it('sets it for its own key at most: 2,000 tokens on one key cuts no other key’s conversation', async () => {
    const proxy = await proxyFor('memory');
    await claimWindow(proxy.url, 'sk-mallory', 2_000);
    const victim = await send(proxy.url, 'sk-victim', { messages: conversation('victim', 6_000) });
    expect(victim).toMatchObject({ status: 200, window: WINDOW, cut: 'none' });
    recordHostile('learned_limits', {
      attacks: 1,
      windows_set_for_other_keys: victim.window === WINDOW ? 0 : 1,
    });
  });

  it('cannot switch fitting off: 10,000,000 tokens is learned for nobody', async () => {
    const proxy = await proxyFor('memory');
    await claimWindow(proxy.url, 'sk-mallory', 10_000_000);
    const victim = await send(proxy.url, 'sk-victim', { messages: conversation('victim', 60_000) });
    const own = await send(proxy.url, 'sk-mallory', { messages: conversation('mallory', 60_000) });
    // Both fitted to the real window, the attacker's own key too: the figure matched no request.
    expect(victim).toMatchObject({ status: 200, window: WINDOW });
    expect(own).toMatchObject({ status: 200, window: WINDOW });
    recordHostile('learned_limits', {
      attacks: 1,
      windows_set_for_other_keys: victim.window === WINDOW ? 0 : 1,
      unmatched_windows_learned: own.window === WINDOW ? 0 : 1,
    });
  });

  it('cannot raise everyone’s count: a prompt count the upstream states is not kept for the model', async () => {
    const proxy = await proxyFor('memory');
    const before = await send(proxy.url, 'sk-victim', { messages: conversation('victim-a', 6_000) });
    for (let attempt = 0; attempt < 4; attempt++) {
      const messages = conversation(`attacker-${attempt}`, 3_000);
      const { estimate } = await send(proxy.url, 'sk-mallory', { messages });
      const stated = estimate * 4;
      const sentence = `This model's maximum context length is ${WINDOW} tokens. However, you requested ${stated + 1_000} tokens (${stated} in the messages, 1000 in the completion). Please reduce the length of the messages or completion.`;
      await send(proxy.url, 'sk-mallory', { messages, reasoning_effort: sentence });
    }
    const after = await send(proxy.url, 'sk-victim', { messages: conversation('victim-b', 6_000) });
    expect(after).toMatchObject({ status: 200, window: WINDOW, cut: 'none' });
    expect(after.estimate / before.estimate).toBeGreaterThan(0.95);
    expect(after.estimate / before.estimate).toBeLessThan(1.05);
    recordHostile('learned_limits', {
      attacks: 4,
      count_raised_for_other_keys: Number((after.estimate / before.estimate).toFixed(2)),
    });
  });

  it('moves everyone’s window one bounded step when two keys agree, and stores only hashes, with an expiry', async () => {
    const path = join(directory, 'two-keys.db');
    const proxy = await proxyFor(`sqlite:${path}`);
    await claimWindow(proxy.url, 'sk-mallory-one', 2_000);
    await claimWindow(proxy.url, 'sk-mallory-two', 2_000);
    const victim = await send(proxy.url, 'sk-victim', { messages: conversation('victim', 6_000) });
    expect(victim.status).toBe(200);
    expect(victim.window).toBe(WINDOW / 4);
    await proxy.close();
    const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    const db = new Sqlite(path, { readonly: true });
    const rows = db.prepare('SELECT key, value, expires_at FROM proxy_state').all() as Array<{
      key: string;
      value: string;
      expires_at: number | null;
    }>;
    db.close();
    const text = JSON.stringify(rows);
    expect(text).not.toMatch(/sk-mallory|sk-victim/);
    expect(rows.filter((row) => row.key.includes(':limits:')).length).toBe(1);
    expect(rows.every((row) => row.expires_at !== null)).toBe(true);
    recordHostile('learned_limits', {
      attacks: 2,
      keys_agreeing: 2,
      shared_step_factor: WINDOW / victim.window,
      stored_secrets: /sk-/.test(text) ? 1 : 0,
      stored_without_expiry: rows.filter((row) => row.expires_at === null).length,
    });
  });
});

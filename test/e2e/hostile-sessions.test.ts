/**
 * Two `spillway chat` processes on one session. While one runs a turn (its reply held back by the
 * upstream until the test lets it go), a second `--resume` of the same session must be refused,
 * saying which process holds it, and write nothing; once the first has ended, or was killed with
 * SIGKILL, the session can be resumed again. The transcript stays one conversation, resumable.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../src/store/index.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { type RunningChat, startChat } from '../support/spawn-chat.js';

const directories: string[] = [];
const running: RunningChat[] = [];
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const chat of running.splice(0)) chat.child.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  writeHostileResults(fileURLToPath(import.meta.url));
});

const LIMIT_MS = 120_000;

/** An upstream that answers at once, except prompts saying HOLD, answered when the test says so. */
async function startUpstream() {
  const held: Array<() => void> = [];
  let heldCount = 0;
  const waiting: Array<() => void> = [];
  const reply = (response: ServerResponse, text: string) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    response.end(
      `${chunk({ role: 'assistant', content: text }, null)}${chunk({}, 'stop')}data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":2,"total_tokens":42}}\n\ndata: [DONE]\n\n`,
    );
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== '/v1/chat/completions') {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const last = (JSON.parse(body) as { messages: Array<{ content: unknown }> }).messages.at(-1);
      if (String(last?.content).includes('HOLD')) {
        heldCount++;
        held.push(() => reply(response, 'held answer'));
        for (const wake of waiting.splice(0)) wake();
        return;
      }
      reply(response, 'quick answer');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const handle = {
    url: `http://127.0.0.1:${port}/v1`,
    /** Resolves once a HOLD request has arrived. */
    holding: () =>
      new Promise<void>((resolve) => {
        if (heldCount > 0) resolve();
        else waiting.push(resolve);
      }),
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(handle);
  return handle;
}

function project(baseUrl: string): string {
  const cwd = mkdtempSync(join(tmpdir(), 'spillway-hostile-sessions-'));
  directories.push(cwd);
  writeFileSync(
    join(cwd, 'spillway.config.json'),
    JSON.stringify({ base_url: baseUrl, model: 'session-model', context_length: 32_768 }),
  );
  return cwd;
}

function sessionOf(cwd: string): { id: string; roles: string[] } {
  const store = new SqliteSessionStore(join(cwd, 'sessions.db'));
  try {
    const [session] = store.listSessions();
    if (!session) return { id: '', roles: [] };
    return { id: session.id, roles: store.liveMessages(session.id).map((stored) => stored.message.role) };
  } finally {
    store.close();
  }
}

describe('two chats on one session', () => {
  it('refuse the second, naming who holds it, and keep one conversation', async () => {
    const upstream = await startUpstream();
    const cwd = project(upstream.url);
    const first = await startChat(cwd, ['-p', 'Start the ledger.'], { limitMs: LIMIT_MS }).ended;
    expect(first.status).toBe(0);
    const { id } = sessionOf(cwd);
    const holder = startChat(cwd, ['-p', 'HOLD and continue.', '--resume', id], { limitMs: LIMIT_MS });
    running.push(holder);
    await upstream.holding();
    const second = await startChat(cwd, ['-p', 'Interleave.', '--resume', id], { limitMs: LIMIT_MS }).ended;
    upstream.release();
    const held = await holder.ended;
    expect(second.status).toBe(2);
    expect(second.stderr).toMatch(
      new RegExp(`session ${id} is in use by spillway chat \\(pid ${holder.child.pid} on `),
    );
    expect(held.status).toBe(0);
    const after = sessionOf(cwd);
    expect(after.roles).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    // Free again once the holder has ended.
    const third = await startChat(cwd, ['-p', 'Finish.', '--resume', id], { limitMs: LIMIT_MS }).ended;
    expect(third.status).toBe(0);
    recordHostile('one_writer', {
      second_writers: 1,
      refused: second.status === 2 ? 1 : 0,
      interleaved_turns: after.roles.filter((role) => role === 'user').length - 2,
    });
  }, 240_000);

  it('free a session whose holder was killed with SIGKILL', async () => {
    const upstream = await startUpstream();
    const cwd = project(upstream.url);
    expect((await startChat(cwd, ['-p', 'Start.'], { limitMs: LIMIT_MS }).ended).status).toBe(0);
    const { id } = sessionOf(cwd);
    const holder = startChat(cwd, ['-p', 'HOLD forever.', '--resume', id], { limitMs: LIMIT_MS });
    running.push(holder);
    await upstream.holding();
    holder.child.kill('SIGKILL');
    await holder.ended;
    upstream.release();
    const next = await startChat(cwd, ['-p', 'Go on.', '--resume', id], { limitMs: LIMIT_MS }).ended;
    expect(next.status).toBe(0);
    expect(next.stdout).toContain('quick answer');
    recordHostile('one_writer', { killed_holders: 1, freed: next.status === 0 ? 1 : 0 });
  }, 240_000);
});

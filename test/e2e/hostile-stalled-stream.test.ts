/**
 * A provider stream that sends one chunk and then nothing, its connection kept open: `spillway chat`
 * must end the turn with a clear error naming the wait and the setting that raises it, without
 * sending again (each resend would wait as long), exit, and keep the session (the prompt is in the store, and the session can be resumed).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../src/store/index.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';
import { startChat } from '../support/spawn-chat.js';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  writeHostileResults(fileURLToPath(import.meta.url));
});

/** Generous: the chat should end one idle timeout (1 s) after the chunk; a hang is killed here. */
const HANG_LIMIT_MS = 60_000;

describe('a stream that stalls after its first chunk', () => {
  it('ends the chat turn with a clear error, and the session is kept', async () => {
    const stalled: ServerResponse[] = [];
    let sends = 0;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url !== '/v1/chat/completions') {
          response.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
          return;
        }
        sends++;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'Let me' }, finish_reason: null }] })}\n\n`,
        );
        stalled.push(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const cwd = mkdtempSync(join(tmpdir(), 'spillway-stall-'));
    directories.push(cwd);
    writeFileSync(
      join(cwd, 'spillway.config.json'),
      JSON.stringify({
        base_url: `http://127.0.0.1:${port}/v1`,
        model: 'stall-model',
        context_length: 32_768,
        stream_idle_timeout_seconds: 1,
      }),
    );
    try {
      const run = await startChat(cwd, ['-p', 'Explain the ledger.'], { limitMs: HANG_LIMIT_MS }).ended;
      expect(run.killed).toBe(false);
      expect(run.status).not.toBe(0);
      expect(run.stderr).toMatch(/stream idle timeout/);
      expect(run.stderr).toMatch(/stream_idle_timeout_seconds/);
      // Not sent again: a server that went silent would keep the user waiting as long on each resend.
      expect(sends).toBe(1);
      const store = new SqliteSessionStore(join(cwd, 'sessions.db'));
      const sessions = store.listSessions();
      const kept = sessions[0] === undefined ? [] : store.liveMessages(sessions[0].id);
      store.close();
      expect(kept.map((stored) => stored.message.role)).toContain('user');
      recordHostile('stalled_streams', {
        streams: 1,
        hung: run.killed ? 1 : 0,
        sessions_kept: kept.length > 0 ? 1 : 0,
      });
    } finally {
      for (const response of stalled) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 90_000);
});

/**
 * `spillway chat` driven in a real terminal (tmux) against the vLLM emulator started here: a session
 * with tool calls on real files, a budget overflow recovered, a write the user allows, a reply
 * cancelled with Ctrl+C, /limits, /compact, /context, /quit; then `--resume` continues the session
 * and a double Ctrl+C leaves. Every step waits for the text it expects on the screen (polling with a
 * generous deadline), never for a fixed time.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { threeLogsReplies, writeThreeLogs } from '../support/three-logs-session.js';
import { createTerminal, hasTmux, occurrences } from './tmux-terminal.js';

const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const terminal = createTerminal('chat');
const { tmux, screen, waitFor, type } = terminal;

let emulator: Emulator;
let project: string;
let store: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'spillway-tmux-'));
  store = join(project, 'sessions.db');
  // 5,000 + 3,500 + 1,500 tokens: with the three read, the prompt plus the 6,000-token reply cap
  // overflows the 16,000-token window the server enforces (the config claims 128k).
  writeThreeLogs(project);
  const done = 'We read three logs and saved note.txt.';
  emulator = await startEmulator({
    profile: 'vllm',
    contextLength: 16_000,
    script: {
      selectBy: 'request',
      after: 'repeat-last',
      // Request 4 is rejected: its reply (the first write) is never sent.
      replies: threeLogsReplies([{ text: 'This reply is cancelled before it is sent.' }, { text: done }]),
    },
    // Request 7 ("Run the slow check.") takes a minute to start answering: Ctrl+C cancels it.
    faults: [{ kind: 'slow-first-byte', requests: [7], delayMs: 60_000 }],
  });
  writeFileSync(
    join(project, 'spillway.config.json'),
    JSON.stringify({
      base_url: `${emulator.url}/v1`,
      model: MODEL,
      // A hard window over the 16,000 the server reports, so that its rejection is what teaches it.
      context_length: { value: 131_072, hard: true },
      output_cap: 6_000,
    }),
  );
});

afterAll(async () => {
  terminal.close();
  await emulator?.close();
});

function start(name: string, args: string[]): void {
  terminal.start(name, { cwd: project, args, env: { SPILLWAY_STORE: store } });
}

describe('spillway chat in a terminal', () => {
  it.skipIf(!hasTmux)(
    `runs a session with tools, an overflow recovered, Ctrl+C, /compact and quit, then resumes it${hasTmux ? '' : ' (skipped: tmux is not installed)'}`,
    async () => {
      start('chat', []);
      await waitFor('chat', `spillway chat · ${MODEL} at ${emulator.url}/v1 (openai)`);
      await waitFor('chat', '› ');

      type('chat', 'Read the three files and save a note.');
      await waitFor('chat', 'allow: write note.txt (17 bytes, new file)? [y/N/a=always for write_file]');
      let text = screen('chat');
      expect(text).toContain('▸ read_file {"path":"a.txt"}');
      expect(text).toContain('▸ read_file {"path":"c.txt"}');
      expect(text).toContain('· the provider rejected the request as too large for its window; recovering…');
      expect(text).toMatch(/· recovered from a budget overflow/);
      tmux('send-keys', '-t', 'chat', 'y', 'Enter');
      text = await waitFor(
        'chat',
        /session ([0-9a-f-]{36}) \(spillway chat --resume ([0-9a-f]{8}) continues it\)/,
      );
      expect(text).toContain('Saved a summary to note.txt.');
      expect(text).toMatch(/context [\d.]+k \/ 16k \(\d+%\)/);
      const id = /session ([0-9a-f-]{36}) /.exec(text)?.[1] as string;
      expect(readFileSync(join(project, 'note.txt'), 'utf8')).toBe('Three test logs.\n');

      type('chat', '/limits');
      await waitFor(
        'chat',
        /window\s+16,000\s+stated by the provider in an error, over 131,072 \(config, marked hard\)/,
      );

      type('chat', 'Run the slow check.');
      const deadline = Date.now() + 30_000;
      while (!emulator.requests.some((record) => record.chatNumber === 7)) {
        if (Date.now() > deadline) throw new Error('the slow request never reached the emulator');
        await sleep(50);
      }
      tmux('send-keys', '-t', 'chat', 'C-c');
      await waitFor('chat', '· cancelled');

      type('chat', '/compact');
      await waitFor('chat', /· compacted: \d+ messages? taken out/);
      type('chat', '/context');
      text = await waitFor('chat', /tool outputs \(\d+\)/);
      // The summary /compact wrote stays with the system prompt and the first message.
      expect(text).toMatch(/head \(system prompt and opening messages, 3 messages\)/);
      expect(text).toMatch(/tool schemas \(6 tools: builtin/);

      type('chat', '/quit');
      await waitFor('chat', '[exited 0]');

      start('resume', ['--resume', id.slice(0, 8)]);
      await waitFor('resume', `· resumed session ${id}`);
      type('resume', 'What did we do?');
      text = await waitFor('resume', 'We read three logs and saved note.txt.');
      expect(occurrences(text, 'session ')).toBeGreaterThanOrEqual(1);
      await waitFor('resume', (screenText) => occurrences(screenText, '› ') >= 2);
      tmux('send-keys', '-t', 'resume', 'C-c');
      await waitFor('resume', '(Ctrl+C again to quit)');
      tmux('send-keys', '-t', 'resume', 'C-c');
      await waitFor('resume', '[exited 0]');

      // The store holds one session: both prompts' turns, the compaction and what it took out.
      expect(existsSync(store)).toBe(true);
      const sessions = new SqliteSessionStore(store);
      try {
        expect(sessions.listSessions().map((session) => session.id)).toEqual([id]);
        const live = sessions.liveMessages(id).map((stored) => stored.message);
        expect(live.at(-1)).toMatchObject({
          role: 'assistant',
          content: 'We read three logs and saved note.txt.',
        });
        expect(live.some((message) => message.role === 'user' && message.content === 'What did we do?')).toBe(
          true,
        );
        expect(
          sessions.compactions(id).filter((record) => record.removed.length > 0).length,
        ).toBeGreaterThanOrEqual(1);
      } finally {
        sessions.close();
      }
      const resumedRequest = emulator.requests.filter((record) => record.chatNumber !== undefined).at(-1);
      expect(JSON.stringify(resumedRequest?.body)).toContain('What did we do?');
    },
    90_000,
  );
});

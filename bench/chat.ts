/**
 * The README's `spillway chat` session, as the terminal showed it: the CLI from source in tmux
 * (test/e2e/tmux-terminal.ts), against the vLLM emulator enforcing 16,000 tokens while the config
 * claims 131,072 and marks it hard (the scenario of test/e2e/chat-terminal.test.ts): three files read,
 * the overflow that teaches the window recovered, a write allowed, then `/context`. Needs tmux.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../src/emulator/index.js';
import { createTerminal, hasTmux } from '../test/e2e/tmux-terminal.js';
import { threeLogsReplies, writeThreeLogs } from '../test/support/three-logs-session.js';

const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const PROMPT = 'Read the three files and save a note.';

/** The screen from the first line the chat printed to the end of `/context`, blank lines left out. */
function transcript(screen: string): string[] {
  const lines = screen.split('\n').map((line) => line.trimEnd());
  const context = lines.findIndex((line) => line.startsWith('› /context'));
  const end = lines.findIndex((line, index) => index > context && line.startsWith('the parts are'));
  return lines.slice(0, end + 1).filter((line) => line !== '' && line !== '›');
}

export async function benchChat(): Promise<Record<string, unknown>> {
  if (!hasTmux) throw new Error('npm run bench -- chat drives a terminal: install tmux');
  const project = mkdtempSync(join(tmpdir(), 'spillway-chat-bench-'));
  writeThreeLogs(project);
  const emulator = await startEmulator({
    profile: 'vllm',
    contextLength: 16_000,
    script: {
      selectBy: 'request',
      after: 'repeat-last',
      replies: threeLogsReplies(),
    },
  });
  writeFileSync(
    join(project, 'spillway.config.json'),
    JSON.stringify({ context_length: { value: 131_072, hard: true }, output_cap: 6_000 }),
  );
  const terminal = createTerminal('chat-bench');
  const args = ['--base-url', `${emulator.url}/v1`, '--model', MODEL];
  try {
    terminal.start('chat', { cwd: project, args, env: { SPILLWAY_STORE: join(project, 'sessions.db') } });
    await terminal.waitFor('chat', '› ');
    terminal.type('chat', PROMPT);
    await terminal.waitFor('chat', 'allow: write note.txt');
    terminal.type('chat', 'y');
    await terminal.waitFor('chat', /continues it\)/);
    terminal.type('chat', '/context');
    const screen = await terminal.waitFor('chat', /the parts are/);
    terminal.type('chat', '/quit');
    await terminal.waitFor('chat', '[exited 0]');
    return {
      argv: ['chat', ...args],
      window_enforced: 16_000,
      window_configured: { value: 131_072, hard: true },
      screen: transcript(screen),
    };
  } finally {
    terminal.close();
    await emulator.close();
    rmSync(project, { recursive: true, force: true });
  }
}

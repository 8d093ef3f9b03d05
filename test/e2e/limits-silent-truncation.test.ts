import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConversationDriver, type ManagerNotice, type Message } from '../../src/core/index.js';
import { codingAgentScript, type Emulator, startEmulator } from '../../src/emulator/index.js';
import { type LoopEvent, runToolLoop } from '../../src/loop/index.js';
import { resolveLimits } from '../../src/models/index.js';
import { createOpenAICompatibleClient } from '../../src/providers/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { codingTools } from '../support/coding-tools.js';

const running: Emulator[] = [];
const directories: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const task: Message[] = [
  { role: 'system', content: 'You are a coding agent. Use the tools to inspect the repository.' },
  { role: 'user', content: 'Find out why the session tests fail.' },
];

const MODEL = 'qwen2.5:7b';

describe('silent truncation against the ollama emulator', () => {
  it('detects the first truncated send, learns the window, persists it, and fits the rest of the run to it', async () => {
    // num_ctx 4,096; the caller believes the model's trained 32,768.
    const ollama = await startEmulator({
      profile: 'ollama',
      port: 0,
      script: codingAgentScript({ turns: 12 }),
    });
    running.push(ollama);
    const directory = mkdtempSync(join(tmpdir(), 'spillway-truncation-'));
    directories.push(directory);
    const store = new SqliteSessionStore(join(directory, 'sessions.db'));
    const events: LoopEvent[] = [];
    const driver = new ConversationDriver({ contextLength: 32_768, model: MODEL, adoptsHistory: true });
    const { manager } = driver;
    const result = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${ollama.url}/v1` }),
      driver,
      model: MODEL,
      messages: task,
      tools: codingTools({ size: 600 }),
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'notice' && 'notice' in event && event.notice.code === 'silent_truncation') {
          const window = event.notice.window;
          if (window !== undefined) store.saveLearnedLimit(MODEL, { contextLength: window });
        }
      },
    });
    expect(result.reason).toBe('completed');

    const chats = ollama.requests.filter((request) => request.chatNumber !== undefined);
    const truncated = chats.filter((request) => request.note?.truncated === true);
    expect(truncated.length).toBeGreaterThan(0);
    const notices = events.flatMap((event) =>
      event.type === 'notice' && 'notice' in event ? [event.notice as ManagerNotice] : [],
    );
    const silent = notices.filter((notice) => notice.code === 'silent_truncation');
    expect(silent.length).toBeGreaterThan(0);
    // The first truncation is caught on the send it happened on: the n-th usage report is the n-th chat.
    const usageIndex = events.filter((event) => event.type === 'usage' || event.type === 'notice');
    const firstNotice = usageIndex.findIndex((event) => event.type === 'notice');
    const usagesBefore = usageIndex.slice(0, firstNotice).filter((event) => event.type === 'usage').length;
    expect(chats[usagesBefore]?.note?.truncated).toBe(true);
    expect(chats.slice(0, usagesBefore).every((request) => request.note?.truncated !== true)).toBe(true);

    const first = silent[0];
    expect(first?.message).toMatch(/qwen2\.5:7b silently truncated the prompt/);
    expect(first?.window).toBeLessThanOrEqual(4_096);
    expect(manager.windowFor(MODEL)).toBeLessThanOrEqual(4_096);
    // The truncated turn is sent again, fitted to the learned window, before the loop goes on.
    expect(events.slice(events.indexOf(usageIndex[firstNotice] as LoopEvent))).toContainEqual(
      expect.objectContaining({ type: 'retry', reason: 'silent_truncation', attempt: 1 }),
    );
    expect(chats[usagesBefore + 1]?.note?.truncated).not.toBe(true);
    // After learning, every send fits the server's real window: no more truncation.
    const afterFirst = chats.slice(usagesBefore + 1);
    expect(afterFirst.length).toBeGreaterThan(0);
    expect(afterFirst.every((request) => request.note?.truncated !== true)).toBe(true);

    // The learned window persists in the session store and wins over discovery next time.
    store.close();
    const reopened = new SqliteSessionStore(join(directory, 'sessions.db'));
    const limits = await resolveLimits({
      model: MODEL,
      baseUrl: `${ollama.url}/v1`,
      learned: reopened.learnedLimits(),
      cache: false,
    });
    reopened.close();
    expect(limits.source.contextLength).toBe('stated');
    expect(limits.contextLength).toBe(manager.windowFor(MODEL));
  });

  it('raises nothing when the window the caller uses is the one the server enforces', async () => {
    const ollama = await startEmulator({
      profile: 'ollama',
      port: 0,
      script: codingAgentScript({ turns: 12 }),
    });
    running.push(ollama);
    const limits = await resolveLimits({ model: MODEL, baseUrl: `${ollama.url}/v1`, cache: false });
    expect(limits.source.contextLength).toBe('discovered:/api/show');
    const events: LoopEvent[] = [];
    const result = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${ollama.url}/v1` }),
      driver: new ConversationDriver({
        contextLength: limits.contextLength,
        model: MODEL,
        adoptsHistory: true,
      }),
      model: MODEL,
      messages: task,
      tools: codingTools({ size: 600 }),
      onEvent: (event) => events.push(event),
    });
    expect(result.reason).toBe('completed');
    expect(ollama.requests.some((request) => request.note?.truncated === true)).toBe(false);
    expect(events.some((event) => event.type === 'notice')).toBe(false);
    expect(events.filter((event) => event.type === 'cut').length).toBeGreaterThan(0);
  });
});

/**
 * The chat's session engine over loopback HTTP: openChatSession against the vLLM emulator with the
 * built-in tools on real files, the SQLite store on disk, overflow recovery, cancellation, a prompt
 * too large to send, /compact, and resuming a session in a new chat.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseChatConfig } from '../../src/chat/chat-config.js';
import { type OpenChat, openChatSession } from '../../src/chat/index.js';
import { validatePairing } from '../../src/core/index.js';
import { type Emulator, fakeToolResult, type Script, startEmulator } from '../../src/emulator/index.js';
import type { LoopEvent } from '../../src/loop/index.js';

const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const open: Array<OpenChat | Emulator> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'spillway-chat-'));
  // 5,000 + 3,500 + 1,500 tokens: with the three of them read, the prompt plus a 6,000-token reply
  // cap no longer fits the 16,000-token window; with two, it does.
  const sizes = { 'a.txt': 5_000, 'b.txt': 3_500, 'c.txt': 1_500 };
  for (const [name, size] of Object.entries(sizes))
    writeFileSync(join(root, name), fakeToolResult({ name: 'read_file', args: { path: name }, size }));
  return root;
}

async function setup(script: Script, { resume, store }: { resume?: string; store?: string } = {}) {
  const emulator = await startEmulator({ profile: 'vllm', contextLength: 16_000, script });
  open.push(emulator);
  const root = project();
  const chat = await openChatSession({
    // The config claims a 128k window, marked hard so that it wins over the 16k the server reports
    // (nothing is compressed or pruned); the server enforces 16k and says so in its rejection.
    config: parseChatConfig({
      base_url: `${emulator.url}/v1`,
      model: MODEL,
      context_length: { value: 131_072, hard: true },
      output_cap: 6_000,
    }),
    flags: { store: store ?? join(root, 'sessions.db'), ...(resume ? { resume } : {}) },
    root,
    confirm: async () => true,
    env: {},
  });
  open.push(chat);
  return { emulator, chat, root, store: store ?? join(root, 'sessions.db') };
}

const reads: Script = {
  selectBy: 'request',
  after: 'repeat-last',
  replies: [
    { text: 'Reading a.', toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { text: 'Reading b.', toolCalls: [{ name: 'read_file', arguments: { path: 'b.txt' } }] },
    { text: 'Reading c.', toolCalls: [{ name: 'read_file', arguments: { path: 'c.txt' } }] },
    { text: 'The three files are test logs.' },
  ],
};

describe('a chat session against the vLLM emulator', () => {
  it('recovers a budget overflow, learns the real window and persists every turn', async () => {
    const { emulator, chat } = await setup(reads);
    const events: LoopEvent[] = [];
    const result = await chat.session.send('What is in the three files?', {
      onEvent: (event) => events.push(event),
    });
    expect(result.reason).toBe('completed');
    expect(result.text).toBe('The three files are test logs.');
    const chats = emulator.requests.filter((record) => record.chatNumber !== undefined);
    expect(chats.map((record) => record.status)).toEqual([200, 200, 200, 400, 200]);
    expect(chats[3]?.overflow).toBe('budget');
    expect((chats[4]?.promptTokens ?? 0) + (chats[4]?.maxTokens ?? 0)).toBeLessThanOrEqual(16_000);
    expect(events.find((event) => event.type === 'recovery')).toMatchObject({ overflow: 'budget' });
    expect(chat.session.window).toBe(16_000);
    expect(chat.store.learnedLimits()[MODEL]).toEqual({ contextLength: 16_000 });
    const id = chat.session.id as string;
    expect(chat.store.liveMessages(id).map((stored) => stored.message)).toEqual(chat.session.messages);
    expect(chat.session.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: 'The three files are test logs.',
    });
  });

  it('continues a stored session in a new chat, with its history and its learned window', async () => {
    const first = await setup(reads);
    await first.chat.session.send('What is in the three files?');
    const id = first.chat.session.id as string;
    const store = first.store;
    const count = first.chat.session.messages.length;
    await first.chat.close();
    open.splice(open.indexOf(first.chat), 1);

    const second = await setup(
      { replies: [{ text: 'We read two logs.' }] },
      { resume: id.slice(0, 8), store },
    );
    expect(second.chat.session.id).toBe(id);
    expect(second.chat.session.messages).toHaveLength(count);
    expect(second.chat.session.window).toBe(16_000);
    const result = await second.chat.session.send('Summarize what we did.');
    expect(result.text).toBe('We read two logs.');
    const body = JSON.stringify(second.emulator.requests.find((record) => record.chatNumber === 1)?.body);
    expect(body).toContain('What is in the three files?');
    expect(body).toContain('Summarize what we did.');
  });

  it('ends a cancelled turn as aborted, answers the calls it skipped, and goes on', async () => {
    const { chat } = await setup({
      selectBy: 'request',
      after: 'repeat-last',
      replies: [
        {
          toolCalls: [
            { name: 'run_command', arguments: { command: 'sleep 30' } },
            { name: 'read_file', arguments: { path: 'a.txt' } },
          ],
        },
        { text: 'Fine.' },
      ],
    });
    const controller = new AbortController();
    const result = await chat.session.send('Run the slow check.', {
      signal: controller.signal,
      onToolCall: ({ name }) => {
        if (name === 'run_command') setTimeout(() => controller.abort(), 50);
      },
    });
    expect(result.reason).toBe('aborted');
    const last = chat.session.messages.at(-1);
    expect(last).toMatchObject({
      role: 'tool',
      isError: true,
      content: expect.stringMatching(/cancelled this turn/),
    });
    expect((await chat.session.send('Never mind.')).text).toBe('Fine.');
    expect(validatePairing(chat.session.messages).ok).toBe(true);
  });

  it('takes back a prompt too large for the window, so the next one is sent', async () => {
    const { chat, emulator } = await setup({ replies: [{ text: 'Hello.' }] });
    const huge = 'lorem ipsum dolor sit amet '.repeat(20_000);
    const result = await chat.session.send(huge);
    expect(result.reason).toBe('context_truncated');
    expect(result.message).toMatch(/your message was not kept$/);
    // Only the estimate said it could not fit: it went out once, and the server's rejection settled it.
    const sent = emulator.requests.filter((record) => record.chatNumber !== undefined);
    expect(sent.map((record) => record.status)).toEqual([400]);
    expect(chat.session.messages).toHaveLength(0);
    expect((await chat.session.send('hi')).text).toBe('Hello.');
    expect(
      chat.store.liveMessages(chat.session.id as string).map((stored) => stored.message.content),
    ).not.toContain(huge);
  });

  it('offers the MCP servers of the config, their schemas loaded on demand', async () => {
    const emulator = await startEmulator({
      profile: 'vllm',
      contextLength: 32_768,
      script: {
        selectBy: 'request',
        replies: [
          { toolCalls: [{ name: 'load_tools', arguments: { names: ['tracker__create_ticket'] } }] },
          {
            toolCalls: [
              {
                name: 'tracker__create_ticket',
                arguments: { project_key: 'PLAT', title: 'Flaky session test' },
              },
            ],
          },
          { text: 'Filed PLAT ticket.' },
        ],
      },
    });
    open.push(emulator);
    const root = project();
    const server = fileURLToPath(new URL('../fixtures/mcp/tools-server.mjs', import.meta.url));
    const notices: string[] = [];
    const chat = await openChatSession({
      config: parseChatConfig({
        base_url: `${emulator.url}/v1`,
        model: MODEL,
        mcp_servers: {
          tracker: { command: process.execPath, args: [server, '--name', 'tracker', '--tools', '60'] },
        },
      }),
      flags: { store: join(root, 'sessions.db') },
      root,
      confirm: async () => true,
      env: {},
      onNotice: (notice) => notices.push(notice.text),
    });
    open.push(chat);
    expect(notices).toEqual([
      'MCP: tracker (60 tools); schemas load on demand (load_tools, at most 40 at once)',
    ]);
    const result = await chat.session.send('File a ticket for the flaky session test.');
    expect(result.text).toBe('Filed PLAT ticket.');
    const tools = emulator.requests
      .filter((record) => record.chatNumber !== undefined)
      .map((record) =>
        ((record.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map(
          (tool) => tool.function.name,
        ),
      );
    expect(tools[0]).toEqual([
      'read_file',
      'list_directory',
      'search_text',
      'write_file',
      'edit_file',
      'run_command',
      'load_tools',
    ]);
    expect(tools[1]).toContain('tracker__create_ticket');
    const answer = chat.session.messages.filter((message) => message.role === 'tool').at(-1);
    expect(JSON.parse(answer?.content as string)).toMatchObject({
      ok: true,
      server: 'tracker',
      tool: 'create_ticket',
    });
    expect(chat.session.contextStatus().parts.schemas.sources.map((source) => source.source)).toEqual(
      expect.arrayContaining(['builtin', 'tracker', 'tool-catalog']),
    );
  });

  it('compacts on demand, keeps the removed messages in the store, and continues', async () => {
    const { chat } = await setup({
      selectBy: 'request',
      after: 'repeat-last',
      replies: [
        { toolCalls: [{ name: 'list_directory', arguments: {} }] },
        { toolCalls: [{ name: 'search_text', arguments: { query: 'zzz-nothing' } }] },
        { toolCalls: [{ name: 'list_directory', arguments: {} }] },
        { text: 'Looked around.' },
      ],
    });
    await chat.session.send('Look around.');
    const before = chat.session.messages.length;
    const compaction = await chat.session.compact();
    expect(compaction.ok).toBe(true);
    expect(chat.session.messages.length).toBeLessThan(before);
    const id = chat.session.id as string;
    expect(chat.store.liveMessages(id).map((stored) => stored.message)).toEqual(chat.session.messages);
    const [record] = chat.store.compactions(id);
    expect(record?.removed.length).toBeGreaterThan(0);
    expect(validatePairing(chat.session.messages).ok).toBe(true);
    expect((await chat.session.send('And now?')).reason).toBe('completed');
  });
});

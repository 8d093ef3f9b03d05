import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ContextWindowManager,
  ConversationDriver,
  createEstimator,
  type ManagerEvent,
  type Message,
  measureSchemaFloor,
  type ToolMessage,
} from '../../src/core/index.js';
import { type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type LoopEvent, runToolLoop } from '../../src/loop/index.js';
import { connectMcpServer, createToolset, LOAD_TOOLS_NAME, type McpConnection } from '../../src/mcp/index.js';
import { resolveLimits } from '../../src/models/index.js';
import { createOpenAICompatibleClient } from '../../src/providers/index.js';
import { codingTools } from '../support/coding-tools.js';

const serverScript = fileURLToPath(new URL('../fixtures/mcp/tools-server.mjs', import.meta.url));
const MODEL = 'Qwen/Qwen2.5-Coder-32B-Instruct';
const WINDOW = 65_536;

const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((entry) => entry.close()));
});

/** A session that already did some work: the head and two turns of file reads. */
function history(): Message[] {
  const messages: Message[] = [
    {
      role: 'system',
      content: 'You are a support engineer. Use the tools to investigate and to file tickets.',
    },
    {
      role: 'user',
      content: 'SSO users cannot log in since this morning. Find out why and file a ticket in PLAT.',
    },
  ];
  for (const [index, path] of ['src/auth/sso.ts', 'src/auth/session.ts'].entries()) {
    const id = `call_read_${index}`;
    messages.push(
      {
        role: 'assistant',
        content: `Reading ${path}.`,
        toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path }) }],
      },
      {
        role: 'tool',
        toolCallId: id,
        content: fakeToolResult({ name: 'read_file', args: { path }, size: 800 }),
      },
    );
  }
  return messages;
}

async function setup(): Promise<{ emulator: Emulator; tracker: McpConnection; contextLength: number }> {
  const emulator = await startEmulator({
    profile: 'vllm',
    port: 0,
    model: MODEL,
    contextLength: WINDOW,
    script: {
      selectBy: 'request',
      replies: [
        {
          text: 'I need the ticket tools.',
          toolCalls: [{ name: LOAD_TOOLS_NAME, arguments: { names: ['tracker__create_ticket'] } }],
        },
        {
          text: 'Filing the ticket.',
          toolCalls: [
            {
              name: 'tracker__create_ticket',
              arguments: {
                project_key: 'PLAT',
                title: 'SSO login fails: expired IdP certificate',
                priority: 'highest',
              },
            },
          ],
        },
        { text: 'Filed the ticket: the IdP signing certificate expired overnight.' },
      ],
    },
  });
  closers.push(emulator);
  const tracker = await connectMcpServer({
    server: {
      name: 'tracker',
      command: process.execPath,
      args: [serverScript, '--name', 'tracker', '--tools', '300'],
    },
  });
  closers.push(tracker);
  const limits = await resolveLimits({ model: MODEL, baseUrl: `${emulator.url}/v1`, cache: false });
  expect(limits.source.contextLength).toBe('discovered:/v1/models');
  return { emulator, tracker, contextLength: limits.contextLength };
}

describe('a 300-tool MCP server whose schemas alone exceed the window', () => {
  it('with full schemas: the turn ends context_truncated naming the server, the conversation is kept, nothing generated', async () => {
    const { emulator, tracker, contextLength } = await setup();
    const toolset = createToolset({ builtins: codingTools(), servers: [tracker] });
    const floor = measureSchemaFloor({ tools: toolset.definitions(), counter: createEstimator() });
    expect(floor.toolTokens).toBeGreaterThan(contextLength);
    expect(floor.sources[0]).toMatchObject({ source: 'tracker', tools: 300 });

    const messages = history();
    const snapshot = structuredClone(messages);
    const events: LoopEvent[] = [];
    const result = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${emulator.url}/v1` }),
      driver: new ConversationDriver({ contextLength, model: MODEL, adoptsHistory: true }),
      model: MODEL,
      messages,
      tools: toolset.tools(),
      onEvent: (event) => events.push(event),
    });
    expect(result.reason).toBe('context_truncated');
    expect(result.message).toMatch(/tool schemas alone take about \d+ \(tracker \d+k \(300 tools\), builtin/);
    expect(result.state.messages).toEqual(snapshot);
    expect(messages).toEqual(snapshot);
    const notice = events.find((event) => event.type === 'notice' && 'notice' in event) as
      | Extract<ManagerEvent, { type: 'notice' }>
      | undefined;
    expect(notice?.level).toBe('error');
    expect(notice?.message).toMatch(
      /^tool schemas use \d+k of the 66k context window, leaving no room for the conversation — tracker \d+k \(300 tools\)/,
    );
    // Only the estimate said it could not fit: the request went out once and the server refused it
    // before generating anything.
    expect(
      emulator.requests
        .filter((request) => request.chatNumber !== undefined)
        .map((request) => request.status),
    ).toEqual([400]);
  });

  it('with deferred loading: the same session proceeds, loads the schema it needs and calls the server', async () => {
    const { emulator, tracker, contextLength } = await setup();
    const toolset = createToolset({ builtins: codingTools(), servers: [tracker], deferred: true });
    const client = createOpenAICompatibleClient({ baseUrl: `${emulator.url}/v1` });
    const events: ManagerEvent[] = [];
    const manager = new ContextWindowManager({
      contextLength,
      model: MODEL,
      onEvent: (event) => events.push(event),
    });
    const original = history();
    const messages = [...original];
    let answer = '';
    for (let step = 0; step < 5 && answer === ''; step++) {
      const fitted = manager.fit({
        format: 'openai',
        model: MODEL,
        messages,
        tools: toolset.definitions(),
        extra: {},
      });
      expect(fitted.pruned).toBe(false);
      const response = await client.send(fitted.request);
      if (response.usage) manager.observe({ promptTokens: response.usage.promptTokens });
      messages.push(response.message);
      const calls = response.message.toolCalls ?? [];
      if (calls.length === 0)
        answer = typeof response.message.content === 'string' ? response.message.content : '';
      for (const call of calls) {
        const content = await toolset
          .execute(call.name, JSON.parse(call.arguments), { callId: call.id })
          .catch((error: Error) => `error: ${error.message}`);
        messages.push({ role: 'tool', toolCallId: call.id, content } satisfies ToolMessage);
      }
    }
    expect(answer).toMatch(/^Filed the ticket/);
    expect(messages.slice(0, original.length)).toEqual(original);
    expect(events.some((event) => event.type === 'notice')).toBe(false);

    const chats = emulator.requests.filter((request) => request.chatNumber !== undefined);
    expect(chats.map((request) => request.status)).toEqual([200, 200, 200]);
    const toolNames = chats.map((request) =>
      ((request.body as { tools?: { function: { name: string } }[] }).tools ?? []).map(
        (tool) => tool.function.name,
      ),
    );
    expect(toolNames[0]).toEqual(['read_file', 'search', 'run', LOAD_TOOLS_NAME]);
    // The loaded tool joins at the end: the tools before it are byte-identical in every request.
    expect(toolNames[1]).toEqual(['read_file', 'search', 'run', LOAD_TOOLS_NAME, 'tracker__create_ticket']);
    const bodies = chats.map(
      (request) => request.body as { tools: { function: { parameters: { required: string[] } } }[] },
    );
    const first = JSON.stringify(bodies[0]?.tools);
    expect(JSON.stringify(bodies[1]?.tools.slice(0, 4))).toBe(first);
    const loaded = bodies[1]?.tools[4];
    expect(loaded?.function.parameters.required).toEqual(['project_key', 'title']);
    expect(chats[0]?.promptTokens).toBeLessThan(contextLength / 4);

    const call = messages
      .flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []) : []))
      .find((entry) => entry.name === 'tracker__create_ticket');
    const result = messages.find(
      (message): message is ToolMessage => message.role === 'tool' && message.toolCallId === call?.id,
    );
    expect(JSON.parse(result?.content as string)).toMatchObject({
      ok: true,
      server: 'tracker',
      tool: 'create_ticket',
      arguments: { project_key: 'PLAT', priority: 'highest' },
    });
  });
});

/**
 * The scripted 40-turn coding session through `@anthropic-ai/sdk`, against the Anthropic emulator
 * over loopback: a hand-written tool loop with extended thinking that alternates `messages.create`
 * and `messages.stream`. The server enforces 24,000 tokens where the catalog says 200,000 for
 * claude-sonnet-4-5, so the transcript outgrows it: the plain client fails on the overflow error,
 * the wrapped one completes.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdapterEvent, withSpillway } from '../../src/adapters/anthropic/index.js';
import { classifyOverflow } from '../../src/core/index.js';
import { codingAgentScript, type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

const MODEL = 'claude-sonnet-4-5';

const tools: Anthropic.Tool[] = [
  {
    name: 'read_file',
    description: 'Read a file of the repository.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  },
  {
    name: 'search',
    description: 'Search the repository for a pattern.',
    input_schema: { type: 'object', properties: { query: { type: 'string' }, path: { type: 'string' } } },
  },
  {
    name: 'run',
    description: 'Run a shell command.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } } },
  },
];

/** The loop: send, run the tools the reply asks for, repeat until a reply calls none. */
async function runSession(client: Anthropic): Promise<{ turns: number; error?: unknown }> {
  const messages: Anthropic.MessageParam[] = [
    { role: 'user', content: 'Find out why the session tests fail.' },
  ];
  const params = {
    model: MODEL,
    max_tokens: 4_096,
    system: 'You are a coding agent. Use the tools to inspect the repository.',
    thinking: { type: 'enabled' as const, budget_tokens: 1_024 },
    tools,
  };
  let turns = 0;
  try {
    for (;;) {
      const message =
        turns % 2 === 0
          ? await client.messages.create({ ...params, messages })
          : await client.messages.stream({ ...params, messages }).finalMessage();
      messages.push({ role: 'assistant', content: message.content });
      turns++;
      const calls = message.content.filter((block) => block.type === 'tool_use');
      if (calls.length === 0) return { turns };
      messages.push({
        role: 'user',
        content: calls.map((call) => ({
          type: 'tool_result' as const,
          tool_use_id: call.id,
          content: fakeToolResult({ name: call.name, args: call.input }),
        })),
      });
    }
  } catch (error) {
    return { turns, error };
  }
}

describe('withSpillway (@anthropic-ai/sdk) against the Anthropic emulator', () => {
  it('completes the 40-turn session with create and stream, recovering the overflow that fails it without', async () => {
    const server = await startEmulator({
      profile: 'anthropic',
      contextLength: 24_000,
      script: codingAgentScript({ turns: 40 }),
    });
    running.push(server);
    const client = new Anthropic({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 });

    const plain = await runSession(client);
    expect(plain.error).toBeInstanceOf(Anthropic.APIError);
    expect((plain.error as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
    expect(classifyOverflow({ error: plain.error }).kind).not.toBe('none');
    expect(plain.turns).toBeLessThan(40);
    expect(server.requests.filter((record) => record.overflow)).toHaveLength(1);

    const from = server.requests.length;
    const events: AdapterEvent[] = [];
    const wrapped = withSpillway(client, { onEvent: (event) => events.push(event) });
    expect(wrapped.messages.create).not.toBe(client.messages.create);
    const run = await runSession(wrapped);
    expect(run.error).toBeUndefined();
    expect(run.turns).toBe(41);

    const requests = server.requests.slice(from);
    const overflows = requests.filter((record) => record.overflow);
    expect(overflows.length).toBeGreaterThanOrEqual(1);
    const seen = events.filter((event) => event.type === 'overflow');
    const recoveries = events.filter((event) => event.type === 'recovery');
    expect(seen).toHaveLength(overflows.length);
    expect(recoveries).toHaveLength(overflows.length);
    for (const recovery of recoveries)
      expect(recovery.type === 'recovery' && recovery.action).not.toBe('give_up');
    expect(requests.filter((record) => record.stream)).not.toHaveLength(0);
    expect(events.filter((event) => event.type === 'usage').length).toBeGreaterThanOrEqual(41);
    expect(requests.at(-1)?.status).toBe(200);
    // Thinking blocks go back with their signatures, exactly as the SDK returned them.
    for (const record of requests) {
      const body = record.body as { messages?: { role: string; content: unknown }[] };
      for (const message of body.messages ?? [])
        if (message.role === 'assistant' && Array.isArray(message.content))
          for (const block of message.content as { type: string; signature?: unknown }[])
            if (block.type === 'thinking') expect(typeof block.signature).toBe('string');
    }
  });
});

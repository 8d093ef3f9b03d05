/**
 * The scripted 40-turn coding session through the `openai` SDK, against the vLLM emulator over
 * loopback: a hand-written tool loop that alternates `chat.completions.create` without and with
 * streaming, and the SDK's own `chat.completions.stream()` helper. The server serves gpt-oss-20b
 * with `--max-model-len 16384` where the catalog says 128,000, so the transcript outgrows it: the
 * plain client fails on vLLM's overflow error, the wrapped one completes.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdapterEvent, withSpillway } from '../../src/adapters/openai/index.js';
import { classifyOverflow } from '../../src/core/index.js';
import { codingAgentScript, type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

const MODEL = 'gpt-oss-20b';

const tools: ChatCompletionTool[] = [
  ['read_file', 'Read a file of the repository.', { path: { type: 'string' } }],
  ['search', 'Search the repository for a pattern.', { query: { type: 'string' }, path: { type: 'string' } }],
  ['run', 'Run a shell command.', { command: { type: 'string' } }],
].map(([name, description, properties]) => ({
  type: 'function',
  function: {
    name: name as string,
    description: description as string,
    parameters: { type: 'object', properties },
  },
}));

/** One assistant message from a streamed completion, as a caller's loop assembles it. */
async function assemble(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  const message: ChatCompletionMessage = { role: 'assistant', content: '', refusal: null };
  const calls: OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    if (delta.content) message.content += delta.content;
    for (const part of delta.tool_calls ?? []) {
      calls[part.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
      const call = calls[part.index] as (typeof calls)[number];
      if (part.id) call.id = part.id;
      call.function.name += part.function?.name ?? '';
      call.function.arguments += part.function?.arguments ?? '';
    }
  }
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** The loop: send, run the tools the reply asks for, repeat until a reply calls none. */
async function runSession(client: OpenAI): Promise<{ turns: number; error?: unknown }> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent. Use the tools to inspect the repository.' },
    { role: 'user', content: 'Find out why the session tests fail.' },
  ];
  let turns = 0;
  try {
    for (;;) {
      let message: ChatCompletionMessage;
      if (turns % 3 === 0) {
        const { data, response } = await client.chat.completions
          .create({ model: MODEL, messages, tools })
          .withResponse();
        expect(response.status).toBe(200);
        message = data.choices[0]?.message as ChatCompletionMessage;
      } else if (turns % 3 === 1) {
        const stream = await client.chat.completions.create({
          model: MODEL,
          messages,
          tools,
          stream: true,
          stream_options: { include_usage: true },
        });
        message = await assemble(stream);
      } else {
        const runner = client.chat.completions.stream({
          model: MODEL,
          messages,
          tools,
          stream_options: { include_usage: true },
        });
        message = (await runner.finalChatCompletion()).choices[0]?.message as ChatCompletionMessage;
      }
      messages.push(message);
      turns++;
      if (!message.tool_calls?.length) return { turns };
      for (const call of message.tool_calls)
        if (call.type === 'function')
          messages.push({
            role: 'tool',
            tool_call_id: call.id,
            content: fakeToolResult({ name: call.function.name, args: call.function.arguments }),
          });
    }
  } catch (error) {
    return { turns, error };
  }
}

describe('withSpillway (openai) against the vLLM emulator', () => {
  it('completes the 40-turn session streaming and not, recovering the overflow that fails it without', async () => {
    const server = await startEmulator({
      profile: 'vllm',
      wording: 'v1',
      model: MODEL,
      contextLength: 16_384,
      script: codingAgentScript({ turns: 40 }),
    });
    running.push(server);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });

    const plain = await runSession(client);
    expect(plain.error).toBeInstanceOf(OpenAI.APIError);
    expect((plain.error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect(classifyOverflow({ error: plain.error }).kind).not.toBe('none');
    expect(plain.turns).toBeLessThan(40);
    expect(server.requests.filter((record) => record.overflow)).toHaveLength(1);

    const from = server.requests.length;
    const events: AdapterEvent[] = [];
    const wrapped = withSpillway(client, { onEvent: (event) => events.push(event) });
    expect(wrapped.chat.completions.create).not.toBe(client.chat.completions.create);
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
    // Streamed usage (include_usage, and the stream helper) and plain usage alike were fed back.
    expect(events.filter((event) => event.type === 'usage').length).toBeGreaterThanOrEqual(41);
    // The history outgrew the learned window and was cut to fit it.
    expect(events.filter((event) => event.type === 'cut').length).toBeGreaterThan(0);
    expect(requests.at(-1)?.status).toBe(200);
  });
});

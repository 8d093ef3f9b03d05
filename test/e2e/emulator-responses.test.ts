/**
 * The emulators' Responses API and counting endpoints, driven by the official SDKs: answers and
 * event streams the SDK parses, usage equal to the chat count of the same conversation, the
 * Responses API's own overflow error, stored responses continued with previous_response_id, and
 * truncation auto.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyOverflow, fromResponses, toOpenAIChat } from '../../src/core/index.js';
import {
  countPromptTokens,
  type Emulator,
  fakeToolResult,
  RESPONSES_CONTEXT_MESSAGE,
  startEmulator,
} from '../../src/emulator/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(profile: 'openai' | 'vllm' | 'anthropic', contextLength?: number): Promise<Emulator> {
  const emulator = await startEmulator({ profile, ...(contextLength ? { contextLength } : {}) });
  running.push(emulator);
  return emulator;
}

const shellTool = {
  type: 'function' as const,
  name: 'shell',
  description: 'Runs a shell command',
  parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } },
  strict: false,
};

/** A Responses conversation with `turns` shell calls and their outputs of `words` words each. */
function conversation(turns: number, words: number): OpenAI.Responses.ResponseInputItem[] {
  const items: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Look around.' }];
  for (let turn = 0; turn < turns; turn++) {
    items.push({
      type: 'function_call',
      call_id: `call_${turn}`,
      name: 'shell',
      arguments: '{"command":["ls"]}',
    });
    items.push({
      type: 'function_call_output',
      call_id: `call_${turn}`,
      output: fakeToolResult({ name: 'run', args: { command: 'ls' }, seed: turn, size: words * 5 }),
    });
  }
  return items;
}

describe('POST /v1/responses', () => {
  it('answers the SDK with a response whose usage is the chat count of the same conversation', async () => {
    const emulator = await start('vllm');
    const client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const input = conversation(2, 200);
    const response = await client.responses.create({
      model: 'm',
      instructions: 'Be brief.',
      input,
      tools: [shellTool],
    });
    const chat = toOpenAIChat(
      fromResponses({ model: 'm', instructions: 'Be brief.', input, tools: [shellTool] }),
    );
    expect(response.usage?.input_tokens).toBe(countPromptTokens(chat).tokens);
    expect(response.output.length).toBeGreaterThan(0);
    expect(response.id).toMatch(/^resp_/);
  });

  it('streams events the SDK assembles into the same kind of response', async () => {
    const emulator = await start('openai');
    const client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const stream = await client.responses.create({ model: 'm', input: 'hello', stream: true });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(completed?.usage?.input_tokens).toBe(emulator.requests.at(-1)?.promptTokens);
  });

  it('rejects input over the window with the Responses API error, classified as a context overflow', async () => {
    const emulator = await start('openai', 2_000);
    const response = await fetch(`${emulator.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', input: conversation(4, 400) }),
    });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(JSON.parse(text).error).toMatchObject({
      message: RESPONSES_CONTEXT_MESSAGE,
      code: 'context_length_exceeded',
    });
    expect(classifyOverflow({ status: 400, body: text }).kind).toBe('context');
  });

  it('continues a stored response with previous_response_id, counting the stored items', async () => {
    const emulator = await start('vllm');
    const client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const first = await client.responses.create({ model: 'm', input: conversation(1, 300) });
    const second = await client.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: 'And now?',
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.usage?.input_tokens).toBeGreaterThan(first.usage?.input_tokens ?? Number.POSITIVE_INFINITY);
    const missing = await fetch(`${emulator.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', previous_response_id: 'resp_nope', input: 'hi' }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      'previous_response_not_found',
    );
  });

  it('drops the oldest items with truncation auto, and rejects the same request without it', async () => {
    const emulator = await start('vllm', 3_000);
    const body = { model: 'm', input: conversation(6, 300) };
    const post = (extra: object) =>
      fetch(`${emulator.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, ...extra }),
      });
    expect((await post({})).status).toBe(400);
    const truncated = await post({ truncation: 'auto' });
    expect(truncated.status).toBe(200);
    const usage = ((await truncated.json()) as { usage: { input_tokens: number } }).usage;
    expect(usage.input_tokens).toBeLessThanOrEqual(3_000);
  });
});

describe('counting endpoints', () => {
  it('answers /v1/responses/input_tokens with what a response would report', async () => {
    const emulator = await start('openai');
    const input = conversation(2, 100);
    const counted = await fetch(`${emulator.url}/v1/responses/input_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', input }),
    }).then((response) => response.json());
    const client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const response = await client.responses.create({ model: 'm', input });
    expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: response.usage?.input_tokens });
  });

  it('answers the Anthropic SDK countTokens with what a message would report', async () => {
    const emulator = await start('anthropic');
    const client = new Anthropic({ baseURL: emulator.url, apiKey: 'k', maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Count me, please.' }];
    const counted = await client.messages.countTokens({
      model: 'claude-sonnet-4-5',
      system: 'Be brief.',
      messages,
    });
    const message = await client.messages.create({
      model: 'claude-sonnet-4-5',
      system: 'Be brief.',
      messages,
      max_tokens: 100,
    });
    expect(counted.input_tokens).toBe(message.usage.input_tokens);
  });
});

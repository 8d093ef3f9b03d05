import Anthropic from '@anthropic-ai/sdk';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import {
  countPromptTokens,
  type Emulator,
  type EmulatorOptions,
  renderPrompt,
  startEmulator,
} from '../../src/emulator/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(
  options: Partial<EmulatorOptions> = {},
): Promise<{ emulator: Emulator; client: Anthropic }> {
  const emulator = await startEmulator({ profile: 'anthropic', port: 0, ...options });
  running.push(emulator);
  return { emulator, client: new Anthropic({ baseURL: emulator.url, apiKey: 'test-key', maxRetries: 0 }) };
}

async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Anthropic.APIError) return error;
    throw error;
  }
  throw new Error('the request was not rejected');
}

function oracle(rendered: string): number {
  const pieces = rendered.split(/<\|im_start\|>|<\|im_end\|>/);
  return pieces.length - 1 + pieces.reduce((sum, piece) => sum + encode(piece).length, 0);
}

const TOOLS = [
  {
    name: 'read_file',
    description: 'Read a file',
    input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } },
  },
];
const request = (words: number, maxTokens: number) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: maxTokens,
  system: 'You are a coding agent.',
  messages: [{ role: 'user' as const, content: `Fix it. ${'token '.repeat(words)}` }],
  tools: TOOLS,
});

describe('anthropic profile overflows', () => {
  it('rejects max_tokens above the output cap', async () => {
    // The SDK refuses non-streaming requests with very large max_tokens, so the cap is lowered.
    const { client } = await start({ outputCap: 4_096, model: 'claude-3-haiku-20240307' });
    const error = await rejection(client.messages.create(request(5, 8_000)));
    expect(error.status).toBe(400);
    expect(error.error).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'max_tokens: 8000 > 4096, which is the maximum allowed number of output tokens for claude-3-haiku-20240307',
      },
      request_id: expect.stringMatching(/^req_011C\w{20}$/),
    });
    expect(error.requestID).toBe((error.error as { request_id: string }).request_id);
  });

  it('rejects a prompt over the window: "prompt is too long: N tokens > M maximum"', async () => {
    const { emulator, client } = await start({ contextLength: 400 });
    const body = request(500, 100);
    const tokens = countPromptTokens(body, { format: 'anthropic' }).tokens;
    const error = await rejection(client.messages.create(body));
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > 400 maximum` },
    });
    expect(emulator.requests[0]).toMatchObject({ overflow: 'context', promptTokens: tokens, status: 400 });
  });

  it('rejects input + max_tokens over the window with the budget wording', async () => {
    const { client } = await start({ contextLength: 400 });
    const body = request(100, 300);
    const tokens = countPromptTokens(body, { format: 'anthropic' }).tokens;
    expect(tokens).toBeLessThan(400);
    const error = await rejection(client.messages.create(body));
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: `input length and \`max_tokens\` exceed context limit: ${tokens} + 300 > 400, decrease input length or \`max_tokens\` and try again`,
      },
    });
  });
});

describe('anthropic profile replies', () => {
  it('reports input_tokens equal to gpt-tokenizer on the rendered template', async () => {
    const { client } = await start();
    const body = request(20, 1_000);
    const message = await client.messages.create(body);
    expect(message.usage.input_tokens).toBe(oracle(renderPrompt(body, { format: 'anthropic' })));
    expect(message.stop_reason).toBe('tool_use');
    const toolUse = message.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({
      type: 'tool_use',
      name: 'read_file',
      id: expect.stringMatching(/^toolu_01/),
    });
  });

  it('streams the Anthropic event sequence with usage in message_start and message_delta', async () => {
    const { emulator, client } = await start();
    const body = { ...request(20, 1_000), stream: true };
    const response = await fetch(`${emulator.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const events = (await response.text()).split('\n\n').filter((event) => event !== '');
    const parsed = events.map((event) => {
      const [name, data] = event.split('\n');
      const payload = JSON.parse((data ?? '').replace(/^data: /, '')) as { type: string };
      expect(name).toBe(`event: ${payload.type}`);
      return payload;
    });
    const types = parsed.map((event) => event.type);
    expect(types[0]).toBe('message_start');
    expect(types[1]).toBe('content_block_start');
    expect(types[2]).toBe('ping');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(types.filter((type) => type === 'content_block_start')).toHaveLength(
      types.filter((type) => type === 'content_block_stop').length,
    );
    expect(parsed[0]).toMatchObject({
      message: { usage: { input_tokens: countPromptTokens(body, { format: 'anthropic' }).tokens } },
    });

    const plain = await client.messages.create(request(20, 1_000));
    const final = await client.messages.stream(request(20, 1_000)).finalMessage();
    expect(final.content).toEqual(plain.content);
    expect(final.stop_reason).toBe(plain.stop_reason);
    expect(final.usage.output_tokens).toBe(plain.usage.output_tokens);
    expect(parsed.at(-2)).toMatchObject({ usage: { output_tokens: plain.usage.output_tokens } });
  });

  it('returns thinking blocks only when thinking is enabled', async () => {
    const { client } = await start({ script: [{ reasoningTokens: 30, text: 'Done.' }] });
    const plain = await client.messages.create(request(5, 2_000));
    expect(plain.content.map((block) => block.type)).toEqual(['text']);
    const thinking = await client.messages.create({
      ...request(5, 2_000),
      thinking: { type: 'enabled', budget_tokens: 1_024 },
    });
    expect(thinking.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(thinking.usage.output_tokens).toBeGreaterThan(plain.usage.output_tokens + 20);
  });

  it('stops at max_tokens with stop_reason max_tokens', async () => {
    const { client } = await start({ script: [{ textTokens: 300 }] });
    const message = await client.messages.create(request(5, 50));
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage.output_tokens).toBe(50);
  });

  it('lists its model on GET /v1/models', async () => {
    const { client } = await start({ model: 'claude-opus-4-1' });
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).toEqual(['claude-opus-4-1']);
  });
});

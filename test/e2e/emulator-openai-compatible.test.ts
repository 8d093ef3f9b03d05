import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  countPromptTokens,
  type Emulator,
  type EmulatorOptions,
  fakeToolResult,
  renderPrompt,
  startEmulator,
} from '../../src/emulator/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(options: EmulatorOptions): Promise<{ emulator: Emulator; client: OpenAI }> {
  const emulator = await startEmulator({ port: 0, ...options });
  running.push(emulator);
  return {
    emulator,
    client: new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'test-key', maxRetries: 0 }),
  };
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

/** The independent oracle: one token per special marker, gpt-tokenizer on the text between them. */
function oracle(rendered: string): number {
  const pieces = rendered.split(/<\|im_start\|>|<\|im_end\|>/);
  return pieces.length - 1 + pieces.reduce((sum, piece) => sum + encode(piece).length, 0);
}

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  },
];
const long = (words: number) => ({
  model: 'any',
  messages: [{ role: 'user' as const, content: 'token '.repeat(words) }],
});
const small = {
  model: 'any',
  messages: [{ role: 'user' as const, content: 'Fix the failing test.' }],
  tools: TOOLS,
};

async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('the request was not rejected');
}

describe('openai profile', () => {
  it('rejects max_tokens above the output cap with OpenAI body', async () => {
    const { emulator, client } = await start({ profile: 'openai' });
    const error = await rejection(client.chat.completions.create({ ...small, max_tokens: 20_000 }));
    expect(error.status).toBe(400);
    const { json } = await post(emulator.url, { ...small, max_tokens: 20_000 });
    expect(json).toEqual({
      error: {
        message:
          'max_tokens is too large: 20000. This model supports at most 16384 completion tokens, whereas you provided 20000.',
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: null,
      },
    });
  });

  it('rejects a prompt over the window ("your messages resulted in") and prompt + max_tokens over it', async () => {
    const { emulator, client } = await start({ profile: 'openai', contextLength: 300 });
    const body = long(400);
    const tokens = countPromptTokens(body).tokens;
    const error = await rejection(client.chat.completions.create(body));
    expect(error.status).toBe(400);
    expect(error.code).toBe('context_length_exceeded');
    expect(error.error).toEqual({
      message: `This model's maximum context length is 300 tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    });
    const fits = long(200);
    const prompt = countPromptTokens(fits).tokens;
    const { status, json } = await post(emulator.url, { ...fits, max_tokens: 200 });
    expect(status).toBe(400);
    expect(json).toEqual({
      error: {
        message: `This model's maximum context length is 300 tokens. However, you requested ${prompt + 200} tokens (${prompt} in the messages, 200 in the completion). Please reduce the length of the messages or completion.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
    expect(emulator.requests.map((request) => request.overflow)).toEqual(['context', 'budget']);
  });

  it('reports usage equal to gpt-tokenizer on the rendered template, non-streaming', async () => {
    const { client } = await start({ profile: 'openai' });
    const completion = await client.chat.completions.create(small);
    expect(completion.usage?.prompt_tokens).toBe(oracle(renderPrompt(small)));
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('read_file');
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
  });

  it('streams SSE chunks, a usage chunk with no choices, then data: [DONE]', async () => {
    const { emulator, client } = await start({ profile: 'openai' });
    const response = await fetch(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...small, stream: true, stream_options: { include_usage: true } }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const raw = await response.text();
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = raw.split('\n\n').filter((event) => event !== '');
    for (const event of events) expect(event).toMatch(/^data: /);
    const chunks = events.slice(0, -1).map(
      (event) =>
        JSON.parse(event.slice(6)) as {
          choices: { finish_reason: string | null }[];
          usage: unknown;
          object: string;
        },
    );
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toMatchObject({ prompt_tokens: countPromptTokens(small).tokens });
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();

    const stream = await client.chat.completions.create({
      ...small,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let argumentsText = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      argumentsText += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      usage = chunk.usage ?? usage;
    }
    const plain = await client.chat.completions.create(small);
    expect(content).toBe(plain.choices[0]?.message.content ?? '');
    const call = plain.choices[0]?.message.tool_calls?.[0];
    expect(argumentsText).toBe(call?.type === 'function' ? call.function.arguments : '');
    expect(usage).toEqual(plain.usage);
  });
});

describe('vllm profile', () => {
  it('rejects prompt + max_tokens over max_model_len with the current wording and reports the lower bound', async () => {
    const { emulator, client } = await start({ profile: 'vllm', contextLength: 400 });
    const body = { ...long(600), max_tokens: 100 };
    const error = await rejection(client.chat.completions.create(body));
    expect(error.status).toBe(400);
    const { json } = await post(emulator.url, body);
    expect(json).toEqual({
      error: {
        message:
          "You passed 301 input tokens and requested 100 output tokens. However, the model's context length is only 400 tokens, resulting in a maximum input length of 300 tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=301)",
        type: 'BadRequestError',
        param: 'input_tokens',
        code: 400,
      },
    });
    expect(emulator.requests[0]?.promptTokens).toBe(countPromptTokens(body).tokens);
  });

  it('sends the older wordings when asked', async () => {
    const { emulator } = await start({ profile: 'vllm', contextLength: 400, wording: 'v0' });
    const fits = long(200);
    const prompt = countPromptTokens(fits).tokens;
    const { status, json } = await post(emulator.url, { ...fits, max_tokens: 300 });
    expect(status).toBe(400);
    expect(json).toEqual({
      object: 'error',
      message: `This model's maximum context length is 400 tokens. However, you requested ${prompt + 300} tokens (${prompt} in the messages, 300 in the completion). Please reduce the length of the messages or completion.`,
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
  });

  it('defaults max_tokens to the room left and stops there with finish_reason length', async () => {
    const { emulator, client } = await start({
      profile: 'vllm',
      contextLength: 320,
      script: [{ textTokens: 400 }],
    });
    const body = long(200);
    const completion = await client.chat.completions.create(body);
    const prompt = countPromptTokens(body).tokens;
    expect(completion.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 320 - prompt });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(emulator.requests[0]?.finishReason).toBe('length');
  });
});

describe('litellm-vllm profile', () => {
  it('wraps a vLLM rejection the way LiteLLM does, enforcing the scaled 210,000 window', async () => {
    const { emulator, client } = await start({ profile: 'litellm-vllm', scale: 0.002, wording: 'v2' });
    const body = { ...long(500), max_tokens: 100 };
    const error = await rejection(client.chat.completions.create(body));
    expect(error.status).toBe(400);
    const { json } = await post(emulator.url, body);
    const upstream = JSON.stringify({
      error: {
        message:
          "This model's maximum context length is 420 tokens. However, you requested 100 output tokens and your prompt contains at least 321 input tokens, for a total of at least 421 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=321)",
        type: 'BadRequestError',
        param: 'input_tokens',
        code: 400,
      },
    });
    expect(json).toEqual({
      error: {
        message: `litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: Hosted_vllmException - ${upstream}\nmodel=glm5.2. context_window_fallbacks=None. fallbacks=None.\n\nSet 'context_window_fallback' - https://docs.litellm.ai/docs/routing#fallbacks. Received Model Group=glm5.2\nAvailable Model Group Fallbacks=None`,
        type: null,
        param: null,
        code: '400',
      },
    });
  });

  it('passes the current vLLM wording through as a plain BadRequestError, which LiteLLM does not recognize', async () => {
    const { emulator } = await start({ profile: 'litellm-vllm', scale: 0.002 });
    const { json } = await post(emulator.url, { ...long(500), max_tokens: 100 });
    const message = (json as { error: { message: string } }).error.message;
    expect(
      message.startsWith(
        'litellm.BadRequestError: Hosted_vllmException - {"error":{"message":"You passed 321 input tokens',
      ),
    ).toBe(true);
    expect(message.endsWith('. Received Model Group=glm5.2\nAvailable Model Group Fallbacks=None')).toBe(
      true,
    );
  });

  it('accepts prompt + max_tokens up to the enforced window although /model/info advertises less', async () => {
    const { emulator, client } = await start({ profile: 'litellm-vllm', scale: 0.01 });
    const info = (await (await fetch(`${emulator.url}/model/info`)).json()) as {
      data: { model_info: { max_input_tokens: number; max_output_tokens: number } }[];
    };
    expect(info.data[0]?.model_info).toMatchObject({ max_input_tokens: 960, max_output_tokens: 960 });
    const body = long(1_100);
    const prompt = countPromptTokens(body).tokens;
    expect(prompt).toBeGreaterThan(960);
    const completion = await client.chat.completions.create({ ...body, max_tokens: 2_100 - prompt });
    expect(completion.usage?.prompt_tokens).toBe(prompt);
  });
});

describe('llamacpp and localai profiles', () => {
  it('llama.cpp rejects a prompt of n_ctx tokens or more with exceed_context_size_error', async () => {
    const { emulator, client } = await start({ profile: 'llamacpp', contextLength: 256 });
    const body = long(400);
    const tokens = countPromptTokens(body).tokens;
    const error = await rejection(client.chat.completions.create(body));
    expect(error.status).toBe(400);
    expect(error.error).toEqual({
      code: 400,
      message: 'the request exceeds the available context size, try increasing it',
      type: 'exceed_context_size_error',
      n_prompt_tokens: tokens,
      n_ctx: 256,
    });
    expect(emulator.requests[0]?.overflow).toBe('context');
  });

  it('llama.cpp ignores max_tokens up front and stops the generation at n_ctx with finish_reason length', async () => {
    const { client } = await start({
      profile: 'llamacpp',
      contextLength: 256,
      script: [{ textTokens: 500 }],
    });
    const body = long(100);
    const prompt = countPromptTokens(body).tokens;
    const completion = await client.chat.completions.create({ ...body, max_tokens: 4_000 });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 256 - prompt });
  });

  it('LocalAI returns the llama.cpp overflow as HTTP 500', async () => {
    const { emulator, client } = await start({ profile: 'localai', contextLength: 256 });
    const body = long(400);
    const tokens = countPromptTokens(body).tokens;
    const error = await rejection(client.chat.completions.create(body));
    expect(error.status).toBe(500);
    const { json } = await post(emulator.url, body);
    expect(json).toEqual({
      error: {
        code: 500,
        message: `rpc error: code = Internal desc = request (${tokens} tokens) exceeds the available context size (256 tokens), try increasing it`,
        type: '',
      },
    });
  });
});

describe('ollama profile', () => {
  it('truncates a long conversation silently, visible only in the reported prompt_tokens', async () => {
    const { emulator, client } = await start({
      profile: 'ollama',
      contextLength: 600,
      script: [{ text: 'ok' }],
    });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are terse.' }];
    for (let turn = 0; turn < 12; turn += 1) {
      messages.push({ role: 'user', content: `question ${turn}: ${'word '.repeat(60)}` });
      messages.push({ role: 'assistant', content: `answer ${turn}` });
    }
    messages.push({ role: 'user', content: 'last question' });
    const body = { model: 'qwen2.5:7b', messages };
    const counted = countPromptTokens(body).tokens;
    expect(counted).toBeGreaterThan(600);
    const completion = await client.chat.completions.create(body);
    const reported = completion.usage?.prompt_tokens ?? 0;
    expect(reported).toBeLessThanOrEqual(600);
    expect(reported).toBeLessThan(counted);
    const note = emulator.requests[0]?.note as { droppedMessages: number; keptFromMessage: number };
    expect(note.droppedMessages).toBeGreaterThan(0);
    const kept = messages.slice(note.keptFromMessage);
    expect(reported).toBe(countPromptTokens({ messages: [messages[0], ...kept] }).tokens);
    expect(
      countPromptTokens({ messages: [messages[0], ...messages.slice(note.keptFromMessage - 1)] }).tokens,
    ).toBeGreaterThan(600);
  });

  it('cuts a single message longer than num_ctx to exactly num_ctx tokens', async () => {
    const { client } = await start({ profile: 'ollama', contextLength: 300 });
    const completion = await client.chat.completions.create(long(800));
    expect(completion.usage?.prompt_tokens).toBe(300);
  });
});

describe('scripted coding agent', () => {
  async function run(
    seed: number,
  ): Promise<{ transcript: OpenAI.ChatCompletionMessageParam[]; prompts: number[] }> {
    const { client } = await start({ profile: 'vllm', contextLength: 60_000, seed });
    const transcript: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Make the tests pass.' },
    ];
    const tools = ['read_file', 'search', 'run'].map((name) => ({
      type: 'function' as const,
      function: { name, parameters: { type: 'object' } },
    }));
    const prompts: number[] = [];
    for (let turn = 0; turn < 6; turn += 1) {
      const completion = await client.chat.completions.create({ model: 'any', messages: transcript, tools });
      prompts.push(completion.usage?.prompt_tokens ?? 0);
      const message = completion.choices[0]?.message;
      if (!message) throw new Error('no reply');
      transcript.push({ role: 'assistant', content: message.content, tool_calls: message.tool_calls });
      for (const call of message.tool_calls ?? []) {
        if (call.type !== 'function') continue;
        transcript.push({
          role: 'tool',
          tool_call_id: call.id,
          content: fakeToolResult({
            name: call.function.name,
            args: call.function.arguments,
            seed,
            size: 300,
          }),
        });
      }
    }
    return { transcript, prompts };
  }

  it('plays the same conversation for the same seed, reading, searching and running as it goes', async () => {
    const first = await run(3);
    const again = await run(3);
    expect(again.transcript).toEqual(first.transcript);
    expect((await run(4)).transcript).not.toEqual(first.transcript);
    const names = first.transcript
      .flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []) : []))
      .map((call) => (call.type === 'function' ? call.function.name : ''));
    expect(names).toHaveLength(6);
    for (const name of names) expect(['read_file', 'search', 'run']).toContain(name);
    for (let turn = 1; turn < first.prompts.length; turn += 1)
      expect(first.prompts[turn]).toBeGreaterThan((first.prompts[turn - 1] ?? 0) + 290);
    expect(first.prompts.at(-1)).toBe(
      countPromptTokens({
        messages: first.transcript.slice(0, -2),
        tools: ['read_file', 'search', 'run'].map((name) => ({
          type: 'function',
          function: { name, parameters: { type: 'object' } },
        })),
      }).tokens,
    );
  });
});

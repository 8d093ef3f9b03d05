import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Emulator,
  type EmulatorOptions,
  type FaultRule,
  startEmulator,
} from '../../src/emulator/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(
  faults: FaultRule[],
  options: Partial<EmulatorOptions> = {},
): Promise<{ emulator: Emulator; client: OpenAI }> {
  const emulator = await startEmulator({ profile: 'openai', port: 0, faults, ...options });
  running.push(emulator);
  return {
    emulator,
    client: new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'test-key', maxRetries: 0 }),
  };
}

const TOOLS = [
  {
    type: 'function' as const,
    function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  },
];
const body = {
  model: 'gpt-4o',
  messages: [{ role: 'user' as const, content: 'Read the config.' }],
  tools: TOOLS,
};

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail');
}

describe('faults', () => {
  it('stream-cut: the socket is destroyed mid-stream and the client sees an error, not [DONE]', async () => {
    const { emulator, client } = await start([{ kind: 'stream-cut', requests: [1, 2] }], {
      script: [{ textTokens: 200 }],
    });
    const stream = await client.chat.completions.create({ ...body, stream: true });
    let received = 0;
    const error = await caught(
      (async () => {
        for await (const chunk of stream) received += chunk.choices[0]?.delta.content?.length ?? 0;
      })(),
    );
    expect(error).toBeInstanceOf(Error);
    expect(received).toBeGreaterThan(0);
    // Not streaming: the headers announce the whole body, half of it arrives, then the socket closes.
    expect(await caught(client.chat.completions.create(body))).toMatchObject({
      message: expect.stringMatching(/terminated|closed|socket/i),
    });
    expect(emulator.requests.map((request) => request.fault)).toEqual(['stream-cut', 'stream-cut']);
    const next = await client.chat.completions.create(body);
    expect(next.choices[0]?.finish_reason).toBe('stop');
  });

  it('invalid-tool-json: the tool call arguments do not parse, with an ordinary tool_calls finish', async () => {
    const { client } = await start([{ kind: 'invalid-tool-json', requests: [1] }]);
    const completion = await client.chat.completions.create(body);
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type).toBe('function');
    expect(() => JSON.parse(call?.type === 'function' ? call.function.arguments : '{}')).toThrow();
    const clean = await client.chat.completions.create(body);
    const cleanCall = clean.choices[0]?.message.tool_calls?.[0];
    expect(JSON.parse(cleanCall?.type === 'function' ? cleanCall.function.arguments : '')).toBeTypeOf(
      'object',
    );
  });

  it('truncate: the reply runs into max_tokens and ends with finish_reason length', async () => {
    const { client } = await start([{ kind: 'truncate', requests: [1] }]);
    const completion = await client.chat.completions.create({ ...body, max_tokens: 40 });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(40);
  });

  it('rate-limit: 429 with retry-after, which the SDK honours before retrying', async () => {
    const { client } = await start([{ kind: 'rate-limit', requests: [1], retryAfter: 1 }]);
    const error = await caught(client.chat.completions.create(body));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('1');
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('rate_limit_exceeded');
    const faulted = await startEmulator({
      profile: 'openai',
      faults: [{ kind: 'rate-limit', requests: [1], retryAfter: 1 }],
    });
    running.push(faulted);
    const completion = await new OpenAI({
      baseURL: `${faulted.url}/v1`,
      apiKey: 'k',
      maxRetries: 1,
    }).chat.completions.create(body);
    expect(completion.choices).toHaveLength(1);
    expect(faulted.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it('server-error and unavailable: 500 and 503 in the profile envelope', async () => {
    const { client } = await start([
      { kind: 'server-error', requests: [1] },
      { kind: 'unavailable', requests: [2] },
    ]);
    const first = (await caught(client.chat.completions.create(body))) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(first).toBeInstanceOf(OpenAI.InternalServerError);
    expect(first.status).toBe(500);
    expect(first.error).toMatchObject({ type: 'server_error' });
    const second = (await caught(client.chat.completions.create(body))) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(second.status).toBe(503);
  });

  it('slow-first-byte: nothing arrives for delayMs, so a shorter client timeout fires; the reply still comes', async () => {
    const { emulator } = await start([{ kind: 'slow-first-byte', requests: [1, 2], delayMs: 2_000 }]);
    const impatient = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'k', maxRetries: 0, timeout: 100 });
    expect(await caught(impatient.chat.completions.create(body))).toBeInstanceOf(
      OpenAI.APIConnectionTimeoutError,
    );
    const slow = await startEmulator({
      profile: 'openai',
      faults: [{ kind: 'slow-first-byte', requests: [1], delayMs: 50 }],
    });
    running.push(slow);
    const completion = await new OpenAI({
      baseURL: `${slow.url}/v1`,
      apiKey: 'k',
      maxRetries: 0,
    }).chat.completions.create(body);
    expect(completion.choices).toHaveLength(1);
    expect(slow.requests[0]?.fault).toBe('slow-first-byte');
  });

  it('malformed-sse: one data line is not JSON and the SDK fails to parse the stream', async () => {
    const { emulator, client } = await start([{ kind: 'malformed-sse', requests: [1, 2, 3] }]);
    const raw = await fetch(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    const events = (await raw.text())
      .split('\n\n')
      .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]');
    const broken = events.filter((event) => {
      try {
        JSON.parse(event.slice(6));
        return false;
      } catch {
        return true;
      }
    });
    expect(broken).toHaveLength(1);
    const stream = await client.chat.completions.create({ ...body, stream: true });
    expect(
      await caught(
        (async () => {
          for await (const _chunk of stream) {
            // drain
          }
        })(),
      ),
    ).toBeInstanceOf(Error);
    expect(await caught(client.chat.completions.create(body))).toBeInstanceOf(Error);
  });

  it('random faults follow the seed: the same seed faults the same requests', async () => {
    const faults: FaultRule[] = [{ kind: 'server-error', probability: 0.5 }];
    const statuses = async (seed: number): Promise<number[]> => {
      const emulator = await startEmulator({ profile: 'vllm', faults, seed });
      running.push(emulator);
      for (let index = 0; index < 12; index += 1)
        await fetch(`${emulator.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(body) });
      return emulator.requests.map((request) => request.status);
    };
    const first = await statuses(11);
    expect(await statuses(11)).toEqual(first);
    expect(first).toContain(500);
    expect(first).toContain(200);
  });

  it('anthropic: a cut stream fails the SDK and overload is a 529 overloaded_error', async () => {
    const emulator = await startEmulator({
      profile: 'anthropic',
      faults: [
        { kind: 'stream-cut', requests: [1] },
        { kind: 'unavailable', requests: [2] },
      ],
      script: [{ textTokens: 200 }],
    });
    running.push(emulator);
    const client = new Anthropic({ baseURL: emulator.url, apiKey: 'k', maxRetries: 0 });
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1_000,
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    expect(await caught(client.messages.stream(request).finalMessage())).toBeInstanceOf(Error);
    const overloaded = (await caught(client.messages.create(request))) as InstanceType<
      typeof Anthropic.APIError
    >;
    expect(overloaded.status).toBe(529);
    expect(overloaded.error).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });
});

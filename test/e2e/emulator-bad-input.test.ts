import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countPromptTokens,
  type Emulator,
  type EmulatorProfileName,
  MAX_BODY_BYTES,
  PROFILE_NAMES,
  startEmulator,
} from '../../src/emulator/index.js';

const emulators = new Map<EmulatorProfileName, Emulator>();
beforeAll(async () => {
  for (const profile of PROFILE_NAMES)
    emulators.set(profile, await startEmulator({ profile, script: [{ text: 'ok' }] }));
});
afterAll(async () => {
  await Promise.all([...emulators.values()].map((emulator) => emulator.close()));
});

function chatPath(profile: EmulatorProfileName): string {
  if (profile === 'gemini') return '/v1beta/models/gemini-2.5-pro:generateContent';
  return profile === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
}

/** Where each profile lists its models. */
function modelsPath(profile: EmulatorProfileName): string {
  return profile === 'gemini' ? '/v1beta/models' : '/v1/models';
}

async function send(
  profile: EmulatorProfileName,
  body: string | Uint8Array,
): Promise<{ status: number; json: unknown; text: string }> {
  const emulator = emulators.get(profile);
  if (!emulator) throw new Error(`no emulator for ${profile}`);
  const response = await fetch(`${emulator.url}${chatPath(profile)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
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

describe('malformed JSON', () => {
  it('gets the body each server sends', async () => {
    const openai = await send('openai', '{"model": "gpt-4o", "messages": [');
    expect(openai.status).toBe(400);
    expect(openai.json).toMatchObject({
      error: {
        type: 'invalid_request_error',
        param: null,
        code: null,
        message: expect.stringMatching(/^We could not parse the JSON body of your request/),
      },
    });
    const anthropic = await send('anthropic', '{"model":');
    expect(anthropic.status).toBe(400);
    expect(anthropic.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const vllm = await send('vllm', '{nope');
    expect(vllm.status).toBe(400);
    expect(vllm.json).toEqual({
      error: {
        message: expect.stringMatching(/^\[\{'type': 'json_invalid'/),
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    });
    const llamacpp = await send('llamacpp', '{nope');
    expect(llamacpp.status).toBe(500);
    expect(llamacpp.json).toMatchObject({
      error: {
        code: 500,
        type: 'server_error',
        message: expect.stringMatching(/^\[json\.exception\.parse_error/),
      },
    });
    const ollama = await send('ollama', '{nope');
    expect(ollama.status).toBe(400);
    expect(ollama.json).toMatchObject({ error: { type: 'invalid_request_error' } });
  });
});

describe('missing messages', () => {
  it('gets the answer of each server: a 400, or an empty "load" reply from Ollama', async () => {
    const body = JSON.stringify({ model: 'm', max_tokens: 10 });
    expect((await send('openai', body)).json).toEqual({
      error: {
        message: "Missing required parameter: 'messages'.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'missing_required_parameter',
      },
    });
    expect((await send('anthropic', body)).json).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages: Field required' },
    });
    const vllm = await send('vllm', body);
    expect(vllm.status).toBe(400);
    expect((vllm.json as { error: { message: string } }).error.message).toBe(
      "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required', 'input': {'model': 'm', 'max_tokens': 10}}]",
    );
    const litellm = await send('litellm-vllm', body);
    expect(litellm.status).toBe(400);
    expect((litellm.json as { error: { message: string; code: string } }).error).toMatchObject({
      code: '400',
      message: expect.stringMatching(/^litellm\.BadRequestError: Hosted_vllmException - /),
    });
    expect((await send('llamacpp', body)).json).toEqual({
      error: { code: 400, message: "'messages' is required", type: 'invalid_request_error' },
    });
    const ollama = await send('ollama', body);
    expect(ollama.status).toBe(200);
    expect(ollama.json).toMatchObject({ choices: [{ finish_reason: 'load', message: { content: '' } }] });
  });

  it('rejects a request without max_tokens on the Anthropic profile', async () => {
    const result = await send(
      'anthropic',
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ error: { message: 'max_tokens: Field required' } });
  });
});

describe('unknown roles', () => {
  it('are a 400 on OpenAI and Anthropic, and reach the template (which skips them) on vLLM', async () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'robot', content: 'beep boop' },
    ];
    const openai = await send('openai', JSON.stringify({ model: 'm', messages }));
    expect(openai.json).toEqual({
      error: {
        message:
          "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
        type: 'invalid_request_error',
        param: 'messages[1].role',
        code: 'invalid_value',
      },
    });
    const anthropic = await send('anthropic', JSON.stringify({ model: 'm', max_tokens: 10, messages }));
    expect(anthropic.json).toMatchObject({
      error: { message: "messages.1.role: Input should be 'user' or 'assistant'" },
    });
    const vllm = await send('vllm', JSON.stringify({ model: 'm', messages }));
    expect(vllm.status).toBe(200);
    expect((vllm.json as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(
      countPromptTokens({ messages: [messages[0]] }).tokens,
    );
  });
});

describe('oversized bodies', () => {
  it('get a 413 and the emulator keeps serving', async () => {
    const big = new Uint8Array(MAX_BODY_BYTES + 1_024).fill(0x61);
    for (const profile of ['openai', 'anthropic', 'vllm'] as const) {
      const result = await send(profile, big);
      expect(result.status).toBe(413);
    }
    expect((await send('anthropic', big)).json).toEqual({
      error: { type: 'request_too_large', message: 'Request exceeds the maximum size' },
    });
    expect(
      (await send('openai', JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })))
        .status,
    ).toBe(200);
  });
});

describe('robustness', () => {
  it('answers every JSON body with a status, and keeps serving', async () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const message = fc.record(
      {
        role: fc.oneof(fc.constantFrom('user', 'assistant', 'tool', 'system'), fc.string()),
        content: json,
        tool_calls: fc.option(json),
      },
      { requiredKeys: ['role'] },
    );
    const body = fc.oneof(
      json,
      fc.record({
        model: json,
        messages: fc.array(fc.oneof(message, json), { maxLength: 4 }),
        tools: fc.option(json),
        max_tokens: fc.option(json),
        stream: fc.option(fc.boolean()),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PROFILE_NAMES), body, async (profile, value) => {
        const result = await send(profile, JSON.stringify(value));
        expect(result.status).toBeGreaterThanOrEqual(200);
        expect(result.status).toBeLessThan(600);
        return true;
      }),
      { numRuns: 60, seed: 42 },
    );
    for (const [profile, emulator] of emulators) {
      expect(emulator.requests.every((request) => request.note?.error === undefined)).toBe(true);
      expect((await fetch(`${emulator.url}${modelsPath(profile)}`)).status).toBe(200);
    }
  });

  it('answers a request that is not HTTP with a 400', async () => {
    const emulator = emulators.get('vllm') as Emulator;
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(emulator.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(reply.startsWith('HTTP/1.1 400')).toBe(true);
    expect((await fetch(`${emulator.url}/v1/models`)).status).toBe(200);
  });

  it('answers unknown paths with the 404 of the server', async () => {
    const vllm = emulators.get('vllm') as Emulator;
    const response = await fetch(`${vllm.url}/v2/nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Not Found' });
    const openai = emulators.get('openai') as Emulator;
    expect(await (await fetch(`${openai.url}/v1/nothing`)).json()).toMatchObject({
      error: { message: 'Invalid URL (GET /v1/nothing)' },
    });
  });
});

/**
 * A request that fits the window with room for an ordinary reply is sent as it was built, on every
 * surface, with `max_tokens` lowered to the room its prompt leaves: the reserve is what a reply needs
 * (1,024 tokens), not a share of the window. The emulated servers enforce 16,384 tokens and every
 * surface is told so; the user's message leaves more than 1,024 tokens but less than a quarter of the
 * window, and the client asks for 8,000 reply tokens, which do not fit on top of it. One request
 * reaches the server on each surface, and it is answered.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, wrapLanguageModel } from 'ai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { spillwayMiddleware } from '../../src/adapters/ai-sdk/index.js';
import { withSpillway as withAnthropic } from '../../src/adapters/anthropic/index.js';
import { withSpillway as withOpenAI } from '../../src/adapters/openai/index.js';
import { parseChatConfig } from '../../src/chat/chat-config.js';
import { openChatSession } from '../../src/chat/index.js';
import { ConversationDriver, sendPolicy } from '../../src/core/index.js';
import { type Emulator, type EmulatorRequestRecord, startEmulator } from '../../src/emulator/index.js';
import { runToolLoop } from '../../src/loop/index.js';
import { createOpenAICompatibleClient } from '../../src/providers/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';

const WINDOW = 16_384;
const ASKED = 8_000;
const MODEL = 'acme/reply-room-7b';

const closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close();
});

async function emulator(profile: 'vllm' | 'anthropic' = 'vllm'): Promise<Emulator> {
  const server = await startEmulator({
    profile,
    ...(profile === 'vllm' ? { model: MODEL } : {}),
    contextLength: WINDOW,
    script: { selectBy: 'request', after: 'repeat-last', replies: [{ text: 'Done.' }] },
  });
  closing.push(server);
  return server;
}

/** Plain prose of about `words` words: the user's message. */
function prose(words: number): string {
  const sentence = 'The parser reads the configuration file and reports every key it does not know. ';
  return sentence.repeat(Math.ceil(words / 14));
}

/**
 * The user's message: about 13,600 tokens on the vLLM emulator, so the prompt leaves 1,024 reply
 * tokens and more, but not a quarter of the window.
 */
const MESSAGE = prose(12_660);

/** The one request the server saw, answered: nothing was refused, cut or rejected first. */
function answered(server: Emulator, path = '/v1/chat/completions'): EmulatorRequestRecord {
  const sent = server.requests.filter((record) => record.path === path);
  expect(sent.map((record) => record.status)).toEqual([200]);
  return sent[0] as EmulatorRequestRecord;
}

/** Sent as built (the user's message whole) and asking for no more than the room the prompt leaves. */
function expectUncutAndClamped(record: EmulatorRequestRecord, field: 'max_tokens' = 'max_tokens'): void {
  const body = record.body as { messages: Array<{ role: string; content: unknown }>; [key: string]: unknown };
  const user = body.messages.find((message) => message.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
  expect(text).toContain(MESSAGE.trim());
  const prompt = record.promptTokens ?? 0;
  expect(prompt + 1_024).toBeLessThanOrEqual(WINDOW);
  const maxTokens = Number(body[field]);
  expect(maxTokens).toBeGreaterThanOrEqual(1_024);
  expect(maxTokens).toBeLessThan(ASKED);
  expect(prompt + maxTokens).toBeLessThanOrEqual(WINDOW);
}

describe('a request with room for an ordinary reply', () => {
  it('is sent uncut through the proxy, counted by the upstream, max_tokens clamped', async () => {
    const server = await emulator();
    const proxy = await startProxy({
      upstream: server.url,
      port: 0,
      config: parseProxyConfig({ context_length: { value: WINDOW, hard: true } }),
    });
    closing.push(proxy);
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        max_tokens: ASKED,
        messages: [{ role: 'user', content: MESSAGE }],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-spillway-cut')).toBe('none');
    expectUncutAndClamped(answered(server));
  });

  it('is sent uncut by the chat', async () => {
    const server = await emulator();
    const root = mkdtempSync(join(tmpdir(), 'spillway-room-'));
    const chat = await openChatSession({
      config: parseChatConfig({
        base_url: `${server.url}/v1`,
        model: MODEL,
        context_length: { value: WINDOW, hard: true },
        output_cap: { value: ASKED, hard: true },
      }),
      flags: { store: join(root, 'sessions.db') },
      root,
      confirm: async () => true,
      env: {},
      stream: false,
    });
    closing.push(chat);
    const result = await chat.session.send(MESSAGE);
    expect(result.reason).toBe('completed');
    expectUncutAndClamped(answered(server));
  });

  it('is sent uncut by the tool loop', async () => {
    const server = await emulator();
    const policy = sendPolicy({ surface: 'loop', model: MODEL, limits: { contextLength: WINDOW } });
    const result = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${server.url}/v1` }),
      driver: new ConversationDriver(policy.driver),
      model: MODEL,
      messages: [{ role: 'user', content: MESSAGE }],
      tools: [],
      maxTokens: ASKED,
    });
    expect(result.reason).toBe('completed');
    expectUncutAndClamped(answered(server));
  });

  it('is sent uncut by the openai SDK adapter', async () => {
    const server = await emulator();
    const client = withOpenAI(new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 }), {
      contextLength: WINDOW,
    });
    await client.chat.completions.create({
      model: MODEL,
      max_tokens: ASKED,
      messages: [{ role: 'user', content: MESSAGE }],
    });
    expectUncutAndClamped(answered(server));
  });

  it('is sent uncut by the AI SDK middleware', async () => {
    const server = await emulator();
    const provider = createOpenAICompatible({ name: 'emulator', baseURL: `${server.url}/v1` });
    const model = wrapLanguageModel({
      model: provider(MODEL),
      middleware: spillwayMiddleware({ contextLength: WINDOW }),
    });
    await generateText({ model, prompt: MESSAGE, maxOutputTokens: ASKED, maxRetries: 0 });
    expectUncutAndClamped(answered(server));
  });

  it('is sent uncut by the Anthropic SDK adapter', async () => {
    const server = await emulator('anthropic');
    const client = withAnthropic(new Anthropic({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 }), {
      contextLength: WINDOW,
    });
    await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: ASKED,
      messages: [{ role: 'user', content: MESSAGE }],
    });
    expectUncutAndClamped(answered(server, '/v1/messages'));
  });
});

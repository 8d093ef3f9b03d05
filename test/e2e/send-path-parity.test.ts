/**
 * One send path: the same upstream rejection, reached through the chat, the tool loop, the openai SDK
 * adapter and the proxy, gets the same retried request from each. The emulated vLLM serves 16,384
 * tokens and rejects `max_tokens=20000` as over `max_model_len`; every surface believes a 32,768
 * window. The chat's first request is captured and replayed through the other three, so all four
 * start from the same bytes; the AI SDK middleware is given the same system prompt, message and tools.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, type ToolSet, tool, wrapLanguageModel } from 'ai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { spillwayMiddleware } from '../../src/adapters/ai-sdk/index.js';
import { withSpillway } from '../../src/adapters/openai/index.js';
import { parseChatConfig } from '../../src/chat/chat-config.js';
import { openChatSession } from '../../src/chat/index.js';
import { ConversationDriver, fromOpenAIChat } from '../../src/core/index.js';
import { type Emulator, type EmulatorRequestRecord, startEmulator } from '../../src/emulator/index.js';
import { type LoopTool, runToolLoop } from '../../src/loop/index.js';
import { createOpenAICompatibleClient } from '../../src/providers/index.js';
import { startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';

const MODEL = 'acme/parity-7b';
const BELIEVED = 32_768;
const SERVED = 16_384;

const closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close();
});

async function emulator(): Promise<Emulator> {
  const server = await startEmulator({
    profile: 'vllm',
    wording: 'v2',
    model: MODEL,
    contextLength: SERVED,
    script: { selectBy: 'request', after: 'repeat-last', replies: [{ text: 'Done.' }] },
  });
  closing.push(server);
  return server;
}

const chats = (server: Emulator) =>
  server.requests.filter((record) => record.path === '/v1/chat/completions');

/** What decides whether a request fits: the messages, the tool names and the reply cap. */
function essentials(record: EmulatorRequestRecord | undefined) {
  const body = record?.body as {
    messages?: unknown;
    tools?: { function: { name: string } }[];
    max_tokens?: number;
  };
  return {
    messages: body?.messages,
    tools: (body?.tools ?? []).map((tool) => tool.function.name),
    max_tokens: body?.max_tokens,
  };
}

/** The rejected first request and the retried one, as the server saw them. */
function rejectedAndRetried(server: Emulator) {
  const [rejected, retried, ...rest] = chats(server);
  expect(rest).toEqual([]);
  expect(rejected?.status).toBe(400);
  expect(rejected?.overflow).toBe('output_cap');
  expect(retried?.status).toBe(200);
  return { rejected, retried };
}

/** What the retried request leaves of the served window, by the server's count of the rejected one. */
function roomLeft({ rejected, retried }: ReturnType<typeof rejectedAndRetried>): number {
  return SERVED - (rejected?.promptTokens ?? Number.NaN) - (retried?.maxTokens ?? Number.NaN);
}

describe('the same upstream rejection through every surface', () => {
  it('gets the same retried request from the chat, the tool loop, the openai adapter, the proxy and the AI SDK middleware', async () => {
    // The chat: its own system prompt, built-in tools and a reply cap filled in from output_cap.
    const chatServer = await emulator();
    const root = mkdtempSync(join(tmpdir(), 'spillway-parity-'));
    const chat = await openChatSession({
      config: parseChatConfig({
        base_url: `${chatServer.url}/v1`,
        model: MODEL,
        // Marked hard, so the chat keeps believing it rather than what the server reports.
        context_length: { value: BELIEVED, hard: true },
        output_cap: { value: 20_000, hard: true },
      }),
      flags: { store: join(root, 'sessions.db') },
      root,
      confirm: async () => true,
      env: {},
      stream: false,
    });
    closing.push(chat);
    const answered = await chat.session.send('Say done.');
    expect(answered.reason).toBe('completed');
    const fromChat = rejectedAndRetried(chatServer);
    expect(essentials(fromChat.rejected).max_tokens).toBe(20_000);
    const body = fromChat.rejected?.body as Record<string, unknown>;

    // The tool loop, with the chat's request as its history, tools and reply cap.
    const loopServer = await emulator();
    const request = fromOpenAIChat(body);
    const tools: LoopTool[] = request.tools.map((tool) => ({ ...tool, execute: () => '' }));
    const looped = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${loopServer.url}/v1` }),
      driver: new ConversationDriver({ contextLength: BELIEVED, model: MODEL, adoptsHistory: true }),
      model: MODEL,
      messages: request.messages,
      tools,
      maxTokens: 20_000,
    });
    expect(looped.reason).toBe('completed');
    const fromLoop = rejectedAndRetried(loopServer);

    // The openai SDK, wrapped.
    const sdkServer = await emulator();
    const sdk = withSpillway(
      new OpenAI({ baseURL: `${sdkServer.url}/v1`, apiKey: 'unused', maxRetries: 0 }),
      {
        contextLength: BELIEVED,
      },
    );
    await sdk.chat.completions.create({ ...(body as Record<string, unknown>), stream: false } as never);
    const fromSdk = rejectedAndRetried(sdkServer);

    // The proxy, with the chat's bytes.
    const proxyServer = await emulator();
    const proxy = await startProxy({
      upstream: proxyServer.url,
      port: 0,
      config: parseProxyConfig({ context_length: { value: BELIEVED, hard: true } }),
    });
    closing.push(proxy);
    const response = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: false }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-spillway-recovery')).toBe('output_cap:lower_max_tokens');
    const fromProxy = rejectedAndRetried(proxyServer);

    // The AI SDK, its model wrapped by the middleware, given the same system prompt, message and tools.
    const aiServer = await emulator();
    const provider = createOpenAICompatible({ name: 'emulator', baseURL: `${aiServer.url}/v1` });
    const system = request.messages.find((message) => message.role === 'system');
    const user = request.messages.find((message) => message.role === 'user');
    const aiTools: ToolSet = {};
    for (const definition of request.tools)
      aiTools[definition.name] = tool({
        description: definition.description,
        inputSchema: jsonSchema(definition.parameters as never),
      });
    await generateText({
      model: wrapLanguageModel({
        model: provider(MODEL),
        middleware: spillwayMiddleware({ contextLength: BELIEVED }),
      }),
      system: typeof system?.content === 'string' ? system.content : undefined,
      prompt: typeof user?.content === 'string' ? user.content : '',
      tools: aiTools,
      maxOutputTokens: 20_000,
      maxRetries: 0,
    });
    const fromAiSdk = rejectedAndRetried(aiServer);

    const expected = essentials(fromChat.retried);
    expect(expected.max_tokens).toBeLessThan(SERVED);
    for (const surface of [fromLoop, fromSdk, fromProxy]) {
      expect(essentials(surface.rejected)).toEqual(essentials(fromChat.rejected));
      expect(essentials(surface.retried)).toEqual(expected);
    }
    // The middleware reads the conversation as the AI SDK holds it (a user message as text parts, a
    // tool_choice), which it estimates a few tokens apart: the same messages and tools are retried, and
    // the reply is given the same room to within 16 tokens of the server's count.
    expect(essentials(fromAiSdk.rejected)).toEqual(essentials(fromChat.rejected));
    const { max_tokens: _, ...rest } = expected;
    expect(essentials(fromAiSdk.retried)).toMatchObject(rest);
    expect(Math.abs(roomLeft(fromAiSdk) - roomLeft(fromChat))).toBeLessThanOrEqual(16);
  });
});

/**
 * One send path: the same upstream rejection, reached through the chat, the tool loop, the openai SDK
 * adapter and the proxy, gets the same retried request from each. The emulated vLLM serves 16,384
 * tokens and rejects `max_tokens=20000` as over `max_model_len`; every surface believes a 32,768
 * window. The chat's first request is captured and replayed through the other three, so all four
 * start from the same bytes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
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

describe('the same upstream rejection through every surface', () => {
  it('gets the same retried request from the chat, the tool loop, the openai adapter and the proxy', async () => {
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

    const expected = essentials(fromChat.retried);
    expect(expected.max_tokens).toBeLessThan(SERVED);
    for (const surface of [fromLoop, fromSdk, fromProxy]) {
      expect(essentials(surface.rejected)).toEqual(essentials(fromChat.rejected));
      expect(essentials(surface.retried)).toEqual(expected);
    }
  });
});

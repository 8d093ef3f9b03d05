/**
 * A client that asks for a large reply in a window its prompt already fills much of, as Claude Code
 * does (`max_tokens: 32000` in a 48,000-token window): the estimate errs high and alone says nothing
 * fits, so the proxy sends the request unchanged for the server to judge, asking for the reply room
 * the budget reserved. Direct, the client would have been rejected (prompt + 32,000 > window) and had
 * to retry itself; through the proxy it gets its reply on the first request.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RESERVE } from '../../src/core/index.js';
import { type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/index.js';
import { parseProxyConfig } from '../../src/proxy/proxy-config.js';

const WINDOW = 48_000;
const closing: Array<Emulator | RunningProxy> = [];
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close();
});

/** A coding session of about 27k real tokens: source read by a tool, turn after turn. */
function session(): Anthropic.MessageParam[] {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Find the bug in the parser.' }];
  for (let turn = 0; turn < 11; turn++) {
    const id = `toolu_01S${turn.toString(36).padStart(3, '0')}read${turn}`;
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'read_file', input: { path: `src/p${turn}.ts` } }],
    });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: id,
          content: fakeToolResult({ name: 'read_file', seed: turn, size: 2_300 }),
        },
      ],
    });
  }
  return messages;
}

describe('a client that asks for more reply than its window leaves', () => {
  it('gets its reply at once: the request goes out as built, asking for the room its prompt leaves', async () => {
    const emulator = await startEmulator({ profile: 'anthropic', contextLength: WINDOW });
    closing.push(emulator);
    const proxy = await startProxy({
      upstream: emulator.url,
      port: 0,
      upstreamFormat: 'anthropic',
      // Hard: the emulator serves less than the catalog's window for this model name.
      config: parseProxyConfig({ context_length: { value: WINDOW, hard: true } }),
    });
    closing.push(proxy);
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'sk-ant-test',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 32_000,
        system: 'You are a coding agent.',
        messages: session(),
      }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { type: string }).type).toBe('message');
    const chats = emulator.requests.filter((record) => record.path === '/v1/messages');
    expect(chats).toHaveLength(1);
    const [sent] = chats;
    expect(sent?.status).toBe(200);
    // The request went out as the client built it: its prompt leaves a reply's room.
    expect(JSON.stringify((sent?.body as { messages?: unknown } | undefined)?.messages)).toBe(
      JSON.stringify(session()),
    );
    expect(response.headers.get('x-spillway-verdict')).not.toBe('over');
    expect(response.headers.get('x-spillway-cut')).toBe('none');
    // It asks for the room the prompt leaves at the middle of what the estimate can count: more
    // than the reserve, less than the 32,000 that direct, on top of the real prompt, is refused.
    const prompt = sent?.promptTokens ?? 0;
    expect(prompt).toBeGreaterThan(20_000);
    expect(prompt + 32_000).toBeGreaterThan(WINDOW);
    expect(sent?.maxTokens).toBeGreaterThan(DEFAULT_RESERVE);
    expect(prompt + (sent?.maxTokens ?? 0)).toBeLessThanOrEqual(WINDOW);
    expect(response.headers.get('x-spillway-recovery')).toBe('none');
  });
});

/**
 * Ollama's window against the ollama emulator: the loaded runner's context length from `/api/ps`,
 * the notice when it is smaller than what the model was trained on, an `options.num_ctx` in an
 * OpenAI-compatible request that Ollama ignores, and `ollama_num_ctx`, which runs the model with
 * the window asked for through a model created with `PARAMETER num_ctx`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseChatConfig } from '../../src/chat/chat-config.js';
import { type ChatNotice, type OpenChat, openChatSession } from '../../src/chat/index.js';
import { type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { ollamaModelWithNumCtx, resolveLimits } from '../../src/models/index.js';

const MODEL = 'qwen2.5:7b';
const open: Array<OpenChat | Emulator> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function ollama(): Promise<Emulator> {
  const emulator = await startEmulator({ profile: 'ollama', port: 0, script: [{ text: 'Read it.' }] });
  open.push(emulator);
  return emulator;
}

/** One chat request of about 10,000 prompt tokens, with whatever else the body carries. */
async function chat(emulator: Emulator, model: string, extra: Record<string, unknown> = {}) {
  const paste = fakeToolResult({ name: 'run', args: { command: 'npm test' }, seed: 3, size: 10_000 });
  const response = await fetch(`${emulator.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: `Why does this fail?\n${paste}` }],
      ...extra,
    }),
  });
  const body = (await response.json()) as { usage: { prompt_tokens: number } };
  return body.usage.prompt_tokens;
}

describe('Ollama’s window', () => {
  it('reads the loaded runner’s context length and says when it is below the trained window, with the fix', async () => {
    const emulator = await ollama();
    const before = await resolveLimits({ model: MODEL, baseUrl: `${emulator.url}/v1`, cache: false });
    expect(before).toMatchObject({ contextLength: 4_096, source: { contextLength: 'discovered:/api/show' } });
    await chat(emulator, MODEL);
    const loaded = await resolveLimits({ model: MODEL, baseUrl: `${emulator.url}/v1`, cache: false });
    expect(loaded).toMatchObject({
      contextLength: 4_096,
      source: { contextLength: 'discovered:/api/ps' },
      discovery: { server: 'ollama', trainedContextLength: 32_768 },
    });
    const notice = loaded.notices?.find((entry) => entry.kind === 'ollama_context_below_trained');
    expect(notice).toMatchObject({ contextLength: 4_096, trainedContextLength: 32_768, endpoint: '/api/ps' });
    expect(notice?.message).toContain('ollama_num_ctx');
    expect(notice?.message).toContain('OLLAMA_CONTEXT_LENGTH=32768');
  });

  it('ignores options.num_ctx on the OpenAI-compatible endpoint, as Ollama does: the prompt is still cut', async () => {
    const emulator = await ollama();
    expect(await chat(emulator, MODEL, { options: { num_ctx: 32_768 } })).toBeLessThanOrEqual(4_096);
  });

  it('runs the model with ollama_num_ctx through a model created with that num_ctx, once', async () => {
    const emulator = await ollama();
    const baseUrl = `${emulator.url}/v1`;
    const first = await ollamaModelWithNumCtx({ baseUrl, model: MODEL, numCtx: 32_768 });
    expect(first).toEqual({ model: 'qwen2.5:7b-num-ctx-32768', created: true });
    expect(await ollamaModelWithNumCtx({ baseUrl, model: MODEL, numCtx: 32_768 })).toEqual({
      model: 'qwen2.5:7b-num-ctx-32768',
      created: false,
    });
    expect(emulator.requests.filter((request) => request.path === '/api/create')).toHaveLength(1);
    // The whole 10,000-token prompt reaches the model: nothing is cut.
    expect(await chat(emulator, first.model)).toBeGreaterThan(9_000);
    const limits = await resolveLimits({ model: first.model, baseUrl, cache: false });
    expect(limits).toMatchObject({ contextLength: 32_768, source: { contextLength: 'discovered:/api/ps' } });
    expect(limits.notices).toBeUndefined();
  });

  it('opens a chat on the created model when the config sets ollama_num_ctx, and says so', async () => {
    const emulator = await ollama();
    const notices: ChatNotice[] = [];
    const root = mkdtempSync(join(tmpdir(), 'spillway-ollama-'));
    const opened = await openChatSession({
      config: parseChatConfig({ base_url: `${emulator.url}/v1`, model: MODEL, ollama_num_ctx: 16_384 }),
      flags: { store: join(root, 'sessions.db') },
      root,
      confirm: async () => true,
      env: {},
      onNotice: (notice) => notices.push(notice),
    });
    open.push(opened);
    expect(opened.session.model).toBe('qwen2.5:7b-num-ctx-16384');
    expect(opened.limits).toMatchObject({
      contextLength: 16_384,
      source: { contextLength: 'discovered:/api/show' },
    });
    expect(notices.some((notice) => notice.text.includes('created qwen2.5:7b-num-ctx-16384'))).toBe(true);
    const result = await opened.session.send('What is in the logs?');
    expect(result.reason).toBe('completed');
    const sent = emulator.requests.filter((request) => request.chatNumber !== undefined);
    expect(sent.map((request) => (request.body as { model: string }).model)).toEqual([
      'qwen2.5:7b-num-ctx-16384',
    ]);
  });

  it('fails with a clear error when the server cannot create the model', async () => {
    const emulator = await ollama();
    await expect(
      ollamaModelWithNumCtx({ baseUrl: `${emulator.url}/v1`, model: 'missing:1b', numCtx: 8_192 }),
    ).rejects.toThrow(/did not create missing:1b-num-ctx-8192 from missing:1b \(HTTP 404/);
  });
});

/**
 * The Gemini API through the proxy against the `gemini` emulator profile: a conversation that
 * outgrows the window is fitted before it is sent, its window discovered from the server's Models
 * API (generateContent and streamGenerateContent answer 200, never passed through), countTokens is answered for the fitted request, the proxy's own errors come in
 * Google's envelope, and an API key given as `?key=` never reaches the log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type ProxyLogEntry, type RunningProxy, startProxy } from '../../src/proxy/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

const MODEL = 'gemini-2.5-pro';
const KEY = 'AIza-test-key-of-the-gemini-suite';

async function setup(
  contextLength: number,
): Promise<{ emulator: Emulator; proxy: RunningProxy; logs: ProxyLogEntry[] }> {
  const emulator = await startEmulator({ profile: 'gemini', contextLength, model: MODEL });
  open.push(emulator);
  const logs: ProxyLogEntry[] = [];
  const proxy = await startProxy({ upstream: emulator.url, port: 0, onLog: (entry) => logs.push(entry) });
  open.push(proxy);
  return { emulator, proxy, logs };
}

/** A Gemini CLI-shaped conversation: the task, then `turns` read_file calls with large results. */
function conversation(turns: number): Record<string, unknown> {
  const contents: unknown[] = [{ role: 'user', parts: [{ text: 'Read every file and sum up.' }] }];
  for (let turn = 0; turn < turns; turn++) {
    contents.push({
      role: 'model',
      parts: [{ functionCall: { name: 'read_file', args: { file_path: `/w/f${turn}.txt` } } }],
    });
    contents.push({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: `read_file-${turn}`,
            name: 'read_file',
            response: {
              output: fakeToolResult({
                name: 'read_file',
                args: { path: `f${turn}` },
                seed: turn,
                size: 3_000,
              }),
            },
          },
        },
      ],
    });
  }
  return {
    systemInstruction: { parts: [{ text: 'You are an interactive CLI agent.' }] },
    contents,
    tools: [
      {
        functionDeclarations: [
          {
            name: 'read_file',
            description: 'Reads a file.',
            parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } },
          },
        ],
      },
    ],
    generationConfig: { maxOutputTokens: 2_000 },
  };
}

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('the Gemini API through the proxy', () => {
  it('fits an over-window generateContent: 200 from the upstream, nothing passed through', async () => {
    const { emulator, proxy } = await setup(12_000);
    const response = await post(`${proxy.url}/v1beta/models/${MODEL}:generateContent`, conversation(12));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-spillway-fit') ?? '').not.toMatch(/passthrough/);
    const answer = (await response.json()) as { candidates: { content: { role: string } }[] };
    expect(answer.candidates[0]?.content.role).toBe('model');
    // Every request the upstream accepted (the summaries of a compaction, the fitted request) fits.
    const chats = emulator.requests.filter((record) => record.chatNumber !== undefined);
    const accepted = chats.filter((record) => record.status === 200);
    expect(accepted.at(-1)).toBe(chats.at(-1));
    for (const record of accepted) expect(record.promptTokens ?? Infinity).toBeLessThanOrEqual(12_000);
    // The window comes from the server's Models API (GET /v1beta/models): fitted before it is sent.
    expect(chats.every((record) => record.overflow === undefined)).toBe(true);
    const again = await post(`${proxy.url}/v1beta/models/${MODEL}:generateContent`, conversation(14));
    expect(again.status).toBe(200);
    expect(emulator.requests.at(-1)?.status).toBe(200);
    expect(Number(again.headers.get('x-spillway-window'))).toBe(12_000);
  });

  it('fits an over-window streamGenerateContent and relays the stream', async () => {
    const { emulator, proxy } = await setup(12_000);
    await post(`${proxy.url}/v1beta/models/${MODEL}:generateContent`, conversation(3));
    const response = await post(
      `${proxy.url}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
      conversation(12),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text).toContain('"finishReason":"STOP"');
    expect(emulator.requests.at(-1)?.status).toBe(200);
    expect(emulator.requests.at(-1)?.promptTokens ?? Infinity).toBeLessThanOrEqual(12_000);
  });

  it('answers countTokens for the fitted request, counted by the upstream', async () => {
    const { proxy } = await setup(12_000);
    await post(`${proxy.url}/v1beta/models/${MODEL}:generateContent`, conversation(12));
    const response = await post(`${proxy.url}/v1beta/models/${MODEL}:countTokens`, {
      generateContentRequest: { model: `models/${MODEL}`, ...conversation(12) },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-spillway-count')).toBe('upstream');
    expect(response.headers.get('x-spillway-count-endpoint')).toBe(`/v1beta/models/${MODEL}:countTokens`);
    const { totalTokens } = (await response.json()) as { totalTokens: number };
    expect(totalTokens).toBeGreaterThan(0);
    expect(totalTokens).toBeLessThanOrEqual(12_000);
  });

  it('answers its own errors in Google’s envelope, and keeps a ?key= out of its log', async () => {
    const { proxy, logs } = await setup(12_000);
    const bad = await post(
      `${proxy.url}/v1beta/models/${MODEL}:generateContent?key=${KEY}`,
      '{"contents": [',
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: unknown }).error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
    });
    await post(`${proxy.url}/v1beta/models/${MODEL}:generateContent?key=${KEY}`, conversation(12));
    expect(JSON.stringify(logs)).not.toContain(KEY);
  });
});

/**
 * The `gemini` emulator profile over loopback HTTP, as the Gemini API answers: generateContent and
 * streamGenerateContent (SSE and JSON array) with usageMetadata, countTokens agreeing with the
 * usage, the model's limits on GET /v1beta/models/{model}, and its rejections in Google's error
 * envelope with the wordings Spillway's overflow catalog knows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { classifyOverflow } from '../../src/core/index.js';
import { type Emulator, GEMINI_PAIRING_MESSAGE, startEmulator } from '../../src/emulator/index.js';

const open: Emulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((emulator) => emulator.close()));
});

async function gemini(contextLength = 4_000, outputCap = 1_000): Promise<Emulator> {
  const emulator = await startEmulator({
    profile: 'gemini',
    contextLength,
    outputCap,
    model: 'gemini-2.5-pro',
  });
  open.push(emulator);
  return emulator;
}

const body = (text: string, extra: Record<string, unknown> = {}) => ({
  systemInstruction: { parts: [{ text: 'Be brief.' }] },
  contents: [{ role: 'user', parts: [{ text }] }],
  ...extra,
});

// biome-ignore lint/suspicious/noExplicitAny: the answers' shapes are what the test asserts on.
type Answer = { status: number; json: any; text: string };

async function post(url: string, value: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
    body: JSON.stringify(value),
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

describe('the gemini emulator profile', () => {
  it('answers generateContent with candidates and usageMetadata, and countTokens with the same count', async () => {
    const emulator = await gemini();
    const base = `${emulator.url}/v1beta/models/gemini-2.5-pro`;
    const answer = await post(`${base}:generateContent`, body('Say hello.'));
    expect(answer.status).toBe(200);
    expect(answer.json.candidates[0].content.role).toBe('model');
    expect(answer.json.candidates[0].finishReason).toBe('STOP');
    const prompt = answer.json.usageMetadata.promptTokenCount;
    expect(prompt).toBeGreaterThan(0);
    expect(answer.json.usageMetadata.totalTokenCount).toBe(
      prompt + answer.json.usageMetadata.candidatesTokenCount,
    );
    const counted = await post(`${base}:countTokens`, { generateContentRequest: body('Say hello.') });
    expect(counted.json.totalTokens).toBe(prompt);
    const info = await (await fetch(`${emulator.url}/v1beta/models/gemini-2.5-pro`)).json();
    expect(info).toMatchObject({
      name: 'models/gemini-2.5-pro',
      inputTokenLimit: 4_000,
      outputTokenLimit: 1_000,
    });
  });

  it('streams streamGenerateContent as SSE with alt=sse, the last chunk with the finish reason and usage', async () => {
    const emulator = await gemini();
    const url = `${emulator.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`;
    const answer = await post(url, body('Say hello.'));
    expect(answer.status).toBe(200);
    const chunks = answer.text
      .split('\r\n\r\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => JSON.parse(frame.slice(6)));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(chunks.at(-1).usageMetadata.promptTokenCount).toBeGreaterThan(0);
    const array = await post(url.replace('?alt=sse', ''), body('Say hello.'));
    expect(Array.isArray(array.json)).toBe(true);
  });

  it('rejects a prompt over the window and a cap over the output limit in words the catalog reads', async () => {
    const emulator = await gemini(400, 1_000);
    const base = `${emulator.url}/v1beta/models/gemini-2.5-pro:generateContent`;
    const long = await post(base, body('word '.repeat(800)));
    expect(long.status).toBe(400);
    expect(long.json.error.status).toBe('INVALID_ARGUMENT');
    expect(long.json.error.message).toMatch(
      /^The input token count \(\d+\) exceeds the maximum number of tokens allowed \(400\)\.$/,
    );
    const overflow = classifyOverflow({ status: long.status, body: long.text });
    expect(overflow.kind).toBe('context');
    expect(overflow.window).toBe(400);
    const capped = await post(base, body('hi', { generationConfig: { maxOutputTokens: 5_000 } }));
    expect(capped.status).toBe(400);
    const cap = classifyOverflow({ status: capped.status, body: capped.text });
    expect(cap.kind).toBe('output_cap');
    expect(cap.outputLimit).toBe(1_000);
    expect(emulator.requests.map((record) => record.overflow)).toEqual(['context', 'output_cap']);
  });

  it('rejects function responses that do not answer their turn’s calls one for one', async () => {
    const emulator = await gemini();
    const answer = await post(`${emulator.url}/v1beta/models/gemini-2.5-pro:generateContent`, {
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'ls', args: {} } },
            { functionCall: { name: 'ls', args: { path: 'x' } } },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'ls', response: { output: 'a' } } }] },
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toBe(GEMINI_PAIRING_MESSAGE);
  });
});

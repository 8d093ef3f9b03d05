import { afterAll, describe, expect, it } from 'vitest';
import { classifyOverflow } from '../../src/core/index.js';
import {
  countPromptTokens,
  type Emulator,
  type EmulatorOptions,
  startEmulator,
} from '../../src/emulator/index.js';

/**
 * Ties the emulators to the classifier: every overflow body an emulator sends is classified with the
 * kind the emulator rejected it for, and with the figures the body states.
 */

const running: Emulator[] = [];
afterAll(async () => {
  await Promise.all(running.map((emulator) => emulator.close()));
});

const WINDOW = 4_000;
const words = (count: number) => 'token '.repeat(count);
/** A prompt that fits the 4,000-token window (about 1,620 tokens) and one that does not (about 5,020). */
const FITS = 1_600;
const OVER = 5_000;

interface Case {
  name: string;
  options: Omit<EmulatorOptions, 'profile'> & { profile: EmulatorOptions['profile'] };
  words: number;
  maxTokens?: number;
  /** The kind the emulator rejects for, and the figures the body must yield (`prompt` = the counted prompt). */
  expected: { kind: string; window?: number; input?: number | 'prompt'; output?: number };
}

const cases: Case[] = [
  {
    name: 'openai output cap',
    options: { profile: 'openai', outputCap: 1_000 },
    words: 5,
    maxTokens: 2_000,
    expected: { kind: 'output_cap', output: 2_000 },
  },
  {
    name: 'openai context',
    options: { profile: 'openai', contextLength: WINDOW },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: 'prompt' },
  },
  {
    name: 'openai budget',
    options: { profile: 'openai', contextLength: WINDOW },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: 'prompt', output: 3_000 },
  },
  {
    name: 'anthropic output cap',
    options: { profile: 'anthropic', outputCap: 1_000 },
    words: 5,
    maxTokens: 2_000,
    expected: { kind: 'output_cap', output: 2_000 },
  },
  {
    name: 'anthropic context',
    options: { profile: 'anthropic', contextLength: WINDOW },
    words: OVER,
    maxTokens: 10,
    expected: { kind: 'context', window: WINDOW, input: 'prompt' },
  },
  {
    name: 'anthropic budget',
    options: { profile: 'anthropic', contextLength: WINDOW },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: 'prompt', output: 3_000 },
  },
  {
    name: 'vllm v3 budget',
    options: { profile: 'vllm', contextLength: WINDOW },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: WINDOW - 3_000 + 1, output: 3_000 },
  },
  {
    name: 'vllm v3 context',
    options: { profile: 'vllm', contextLength: WINDOW },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: WINDOW + 1, output: 0 },
  },
  {
    name: 'vllm v3 max_tokens over the window',
    options: { profile: 'vllm', contextLength: WINDOW },
    words: 5,
    maxTokens: 5_000,
    expected: { kind: 'output_cap', output: 5_000 },
  },
  {
    name: 'vllm v2 budget',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'v2' },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: WINDOW - 3_000 + 1, output: 3_000 },
  },
  {
    name: 'vllm v2 context',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'v2' },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: WINDOW + 1 },
  },
  {
    name: 'vllm v1 budget',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'v1' },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: 'prompt', output: 3_000 },
  },
  {
    name: 'vllm v1 context',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'v1' },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: 'prompt' },
  },
  {
    name: 'vllm v0 budget',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'v0' },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: 'prompt', output: 3_000 },
  },
  {
    name: 'vllm v0 context',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'v0' },
    words: OVER,
    maxTokens: 10,
    expected: { kind: 'context', window: WINDOW, input: 'prompt', output: 10 },
  },
  {
    name: 'sglang budget',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'sglang' },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: 'prompt', output: 3_000 },
  },
  {
    name: 'sglang context',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'sglang' },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: 'prompt' },
  },
  {
    name: 'sglang output cap',
    options: { profile: 'vllm', contextLength: WINDOW, wording: 'sglang' },
    words: 5,
    maxTokens: 5_000,
    expected: { kind: 'output_cap', output: 5_000 },
  },
  {
    name: 'litellm over vllm v3 budget',
    options: { profile: 'litellm-vllm', contextLength: WINDOW },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: WINDOW - 3_000 + 1, output: 3_000 },
  },
  {
    name: 'litellm over vllm v2 context',
    options: { profile: 'litellm-vllm', contextLength: WINDOW, wording: 'v2' },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: WINDOW + 1 },
  },
  {
    name: 'litellm over sglang budget',
    options: { profile: 'litellm-vllm', contextLength: WINDOW, wording: 'sglang' },
    words: FITS,
    maxTokens: 3_000,
    expected: { kind: 'budget', window: WINDOW, input: 'prompt', output: 3_000 },
  },
  {
    name: 'llamacpp context',
    options: { profile: 'llamacpp', contextLength: WINDOW },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: 'prompt' },
  },
  {
    name: 'llamacpp v1 context',
    options: { profile: 'llamacpp', contextLength: WINDOW, wording: 'v1' },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: 'prompt' },
  },
  {
    name: 'llamacpp v3 context',
    options: { profile: 'llamacpp', contextLength: WINDOW, wording: 'v3' },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: 'prompt' },
  },
  {
    name: 'localai context (HTTP 500)',
    options: { profile: 'localai', contextLength: WINDOW },
    words: OVER,
    expected: { kind: 'context', window: WINDOW, input: 'prompt' },
  },
];

describe('classifyOverflow on emulator error bodies', () => {
  for (const testCase of cases) {
    it(`classifies ${testCase.name}`, async () => {
      const emulator = await startEmulator(testCase.options);
      running.push(emulator);
      const anthropic = testCase.options.profile === 'anthropic';
      const request = {
        model: 'any',
        ...(anthropic
          ? { max_tokens: testCase.maxTokens ?? 10 }
          : testCase.maxTokens === undefined
            ? {}
            : { max_tokens: testCase.maxTokens }),
        messages: [{ role: 'user', content: words(testCase.words) }],
      };
      const response = await fetch(`${emulator.url}${anthropic ? '/v1/messages' : '/v1/chat/completions'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      const body = await response.text();
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(emulator.requests[0]?.overflow).toBe(testCase.expected.kind);
      const info = classifyOverflow({ status: response.status, body });
      const { input, ...figures } = testCase.expected;
      const prompt = countPromptTokens(request, { format: anthropic ? 'anthropic' : 'openai' }).tokens;
      expect(info, body).toMatchObject({
        ...figures,
        ...(input === undefined ? {} : { input: input === 'prompt' ? prompt : input }),
      });
    });
  }

  it('classifies the budget body vLLM v3 sends for a prompt over the window as budget, as its figures say', async () => {
    // vLLM truncates tokenization at W - max_tokens + 1, so the body understates the prompt: a
    // classifier can only go by the numbers, and the next attempt (lower max_tokens) fails again.
    const emulator = await startEmulator({ profile: 'vllm', contextLength: WINDOW });
    running.push(emulator);
    const response = await fetch(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'any',
        max_tokens: 100,
        messages: [{ role: 'user', content: words(OVER) }],
      }),
    });
    const info = classifyOverflow({ status: response.status, body: await response.text() });
    expect(info).toMatchObject({ kind: 'budget', window: WINDOW, input: WINDOW - 100 + 1, output: 100 });
    expect(emulator.requests[0]?.promptTokens).toBeGreaterThan(WINDOW);
  });

  it('finds no overflow in an emulated 429, 500 or 529', async () => {
    for (const profile of ['openai', 'anthropic', 'vllm', 'litellm-vllm', 'llamacpp', 'ollama'] as const) {
      const emulator = await startEmulator({
        profile,
        faults: [
          { kind: 'rate-limit', requests: [1] },
          { kind: 'server-error', requests: [2] },
          { kind: 'unavailable', requests: [3] },
        ],
      });
      running.push(emulator);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const response = await fetch(
          `${emulator.url}${profile === 'anthropic' ? '/v1/messages' : '/v1/chat/completions'}`,
          {
            method: 'POST',
            body: JSON.stringify({
              model: 'any',
              max_tokens: 10,
              messages: [{ role: 'user', content: 'hi' }],
            }),
          },
        );
        const body = await response.text();
        expect(classifyOverflow({ status: response.status, body }).kind, `${profile}: ${body}`).toBe('none');
      }
    }
  });
});

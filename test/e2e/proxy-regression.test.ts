/**
 * The regression scenario through `spillway serve`, with the real openai SDK as an unmodified client:
 * LiteLLM in front of vLLM at 1:10 scale advertises 9,600 input and 9,600 output tokens while vLLM
 * enforces 21,000 on prompt + max_tokens. A client that asks for the advertised cap fails from the
 * first prompt above 11,400 tokens when it talks to the server directly, and runs its whole
 * tool-using session through the proxy.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPromptTokens, type Emulator, fakeToolResult, startEmulator } from '../../src/emulator/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/index.js';

const MODEL = 'glm5.2';
const ADVERTISED_OUTPUT = 9_600;
const MAX_INPUT_AT_CAP = 21_000 - ADVERTISED_OUTPUT; // 11,400
const TURNS = 18;

const TOOLS: ChatCompletionTool[] = ['read_file', 'search', 'run'].map((name) => ({
  type: 'function',
  function: {
    name,
    description: `The ${name} tool.`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, query: { type: 'string' }, command: { type: 'string' } },
    },
  },
}));

interface TurnRecord {
  ok: boolean;
  /** Prompt tokens of the request the client sent (its whole history). */
  clientPromptTokens: number;
  status?: number;
  message?: string;
  headers?: Record<string, string | null>;
}

/** A plain agent loop: the same code whatever base URL it is given. */
async function runAgent(baseURL: string): Promise<TurnRecord[]> {
  const client = new OpenAI({ baseURL, apiKey: 'sk-regression', maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent. Use the tools to inspect the repository.' },
    { role: 'user', content: 'Find and fix the budget bug in src/budget.ts, then run the tests.' },
  ];
  const records: TurnRecord[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const body = { model: MODEL, messages, tools: TOOLS, max_tokens: ADVERTISED_OUTPUT };
    const clientPromptTokens = countPromptTokens(body).tokens;
    try {
      const { data, response } = await client.chat.completions.create(body).withResponse();
      const message = data.choices[0]?.message;
      if (!message) throw new Error('no choice in the reply');
      messages.push(message);
      for (const call of message.tool_calls ?? []) {
        if (call.type !== 'function') continue;
        const content = fakeToolResult({
          name: call.function.name,
          args: call.function.arguments,
          seed: turn,
          size: 900,
        });
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
      records.push({
        ok: true,
        clientPromptTokens,
        headers: {
          estimate: response.headers.get('x-spillway-estimate'),
          budget: response.headers.get('x-spillway-budget'),
          pruned: response.headers.get('x-spillway-pruned-turns'),
          recovery: response.headers.get('x-spillway-recovery'),
          verdict: response.headers.get('x-spillway-verdict'),
        },
      });
    } catch (error) {
      if (!(error instanceof OpenAI.APIError)) throw error;
      records.push({ ok: false, clientPromptTokens, status: error.status, message: error.message });
      break;
    }
  }
  return records;
}

let direct: Emulator;
let upstream: Emulator;
let proxy: RunningProxy;

beforeAll(async () => {
  direct = await startEmulator({ profile: 'litellm-vllm', scale: 0.1 });
  upstream = await startEmulator({ profile: 'litellm-vllm', scale: 0.1 });
  proxy = await startProxy({ upstream: upstream.url, port: 0 });
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all([direct?.close(), upstream?.close()]);
});

const chats = (emulator: Emulator) =>
  emulator.requests.filter((record) => record.path === '/v1/chat/completions');

describe('the regression scenario through spillway serve', () => {
  it('fails talking to the server directly from the first prompt above 11,400 tokens', async () => {
    const records = await runAgent(`${direct.url}/v1`);
    const failed = records.at(-1);
    expect(failed?.ok).toBe(false);
    expect(failed?.status).toBe(400);
    expect(failed?.message).toMatch(/context length is only 21000 tokens/);
    const sent = chats(direct);
    const rejected = sent.at(-1);
    expect(rejected?.overflow).toBe('budget');
    expect(rejected?.promptTokens).toBeGreaterThan(MAX_INPUT_AT_CAP);
    for (const accepted of sent.slice(0, -1))
      expect(accepted.promptTokens).toBeLessThanOrEqual(MAX_INPUT_AT_CAP);
    expect(records.length).toBeLessThan(TURNS);
  });

  it('runs the same unmodified client through the proxy for every turn, past the old failure point', async () => {
    const records = await runAgent(`${proxy.url}/v1`);
    expect(records).toHaveLength(TURNS);
    expect(records.every((record) => record.ok)).toBe(true);
    expect(Math.max(...records.map((record) => record.clientPromptTokens))).toBeGreaterThan(
      MAX_INPUT_AT_CAP + 1_000,
    );
    // Before the first turn the proxy probed once: vLLM rejected a max_tokens above any window at
    // once, stating the 21,000 it enforces, before generating anything.
    const [probe, ...sent] = chats(upstream);
    expect(probe).toMatchObject({ status: 400, maxTokens: 1_000_000_000, stream: true });
    // Every request of the session the upstream saw was accepted: the proxy fitted each one before sending it.
    expect(sent).toHaveLength(TURNS);
    expect(sent.every((record) => record.status === 200)).toBe(true);
    for (const record of sent) {
      expect((record.promptTokens ?? 0) + (record.maxTokens ?? 0)).toBeLessThanOrEqual(21_000);
      expect(record.maxTokens).toBeLessThanOrEqual(ADVERTISED_OUTPUT);
    }
    for (const record of records) {
      // Over the budget only when the estimate alone said so, and the upstream took it.
      if (record.headers?.verdict !== 'uncertain')
        expect(Number(record.headers?.estimate)).toBeLessThanOrEqual(Number(record.headers?.budget));
      expect(record.headers?.recovery).toBe('none');
    }
    // The whole history fits the 21,000 with room for a reply: it goes out whole, and max_tokens is
    // lowered from the advertised cap to the room the prompt leaves.
    const last = sent.at(-1);
    expect(last?.promptTokens).toBe(records.at(-1)?.clientPromptTokens);
    expect(last?.maxTokens).toBeLessThan(ADVERTISED_OUTPUT);
  });
});

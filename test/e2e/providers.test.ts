import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/core/index.js';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import {
  createAnthropicClient,
  createOpenAICompatibleClient,
  ProviderError,
  type StreamEvent,
} from '../../src/providers/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

async function emulator(options: Parameters<typeof startEmulator>[0]): Promise<Emulator> {
  const started = await startEmulator(options);
  running.push(started);
  return started;
}

const request = (content = 'Read src/app.ts', extra: Partial<ChatRequest> = {}): ChatRequest => ({
  format: 'openai',
  model: 'test-model',
  messages: [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content },
  ],
  tools: [
    {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ],
  maxTokens: 512,
  extra: {},
  ...extra,
});

const noWait = { sleep: async () => undefined };

describe('the OpenAI-compatible client against the emulators', () => {
  it('returns the reply with usage equal to what the server counted, streaming and not', async () => {
    const server = await emulator({ profile: 'vllm' });
    const client = createOpenAICompatibleClient({ baseUrl: `${server.url}/v1` });
    const plain = await client.send(request());
    const events: StreamEvent[] = [];
    const streamed = await client.send(request(), { stream: true, onEvent: (event) => events.push(event) });
    expect(plain.usage?.promptTokens).toBe(server.requests[0]?.reportedPromptTokens);
    expect(streamed.usage?.promptTokens).toBe(plain.usage?.promptTokens);
    expect(streamed.message).toEqual(plain.message);
    expect(streamed.finishReason).toBe(plain.finishReason);
    expect(events.some((event) => event.type === 'usage')).toBe(true);
  });

  it('rejects an overflow with a classified, non-retryable ProviderError and never retries it', async () => {
    const server = await emulator({ profile: 'vllm', contextLength: 2_048 });
    const client = createOpenAICompatibleClient({ baseUrl: `${server.url}/v1`, retry: { ...noWait } });
    const error = await client.send(request('x '.repeat(3_000))).catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).overflow.kind).not.toBe('none');
    expect((error as ProviderError).overflow.window).toBe(2_048);
    expect((error as ProviderError).retryable).toBe(false);
    expect(server.requests.filter((record) => record.path === '/v1/chat/completions')).toHaveLength(1);
  });

  it('does not retry an overflow that LocalAI sends as HTTP 500', async () => {
    const server = await emulator({ profile: 'localai', contextLength: 2_048 });
    const client = createOpenAICompatibleClient({ baseUrl: `${server.url}/v1`, retry: { maxRetries: 3 } });
    const error = (await client
      .send(request('x '.repeat(3_000)))
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(error.status).toBe(500);
    expect(error.overflow.kind).toBe('context');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 429 after the retry-after the server asked for, and a 503 with backoff', async () => {
    const server = await emulator({
      profile: 'openai',
      faults: [
        { kind: 'rate-limit', requests: [1], retryAfter: 2 },
        { kind: 'unavailable', requests: [2] },
      ],
    });
    const waits: number[] = [];
    const client = createOpenAICompatibleClient({
      baseUrl: `${server.url}/v1`,
      retry: { maxRetries: 2, random: () => 0, sleep: async (ms) => void waits.push(ms) },
    });
    const response = await client.send(request());
    expect(response.message.role).toBe('assistant');
    expect(server.requests).toHaveLength(3);
    expect(waits).toEqual([2_000, 1_000]);
  });

  it('gives up after maxRetries and rethrows the last error', async () => {
    const server = await emulator({
      profile: 'openai',
      faults: [{ kind: 'server-error', requests: [1, 2, 3] }],
    });
    const client = createOpenAICompatibleClient({
      baseUrl: `${server.url}/v1`,
      retry: { maxRetries: 2, ...noWait },
    });
    const error = (await client.send(request()).catch((caught: unknown) => caught)) as ProviderError;
    expect(error.status).toBe(500);
    expect(server.requests).toHaveLength(3);
  });

  it('fails a cut stream as stream_interrupted, and a malformed SSE line the same way', async () => {
    const server = await emulator({
      profile: 'openai',
      faults: [
        { kind: 'stream-cut', requests: [1] },
        { kind: 'malformed-sse', requests: [2] },
      ],
    });
    const client = createOpenAICompatibleClient({ baseUrl: `${server.url}/v1` });
    const cut = (await client
      .send(request(), { stream: true })
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(cut.failure).toBe('stream_interrupted');
    const malformed = (await client
      .send(request(), { stream: true })
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(malformed.failure).toBe('stream_interrupted');
    expect(malformed.message).toMatch(/not a JSON object/);
  });

  it('reports an unreachable server as a retryable connection failure', async () => {
    const client = createOpenAICompatibleClient({
      baseUrl: 'http://127.0.0.1:9/v1',
      retry: { maxRetries: 0 },
    });
    const error = (await client.send(request()).catch((caught: unknown) => caught)) as ProviderError;
    expect(error.failure).toBe('connection');
    expect(error.retryable).toBe(true);
  });

  it('stops at once when aborted', async () => {
    const server = await emulator({
      profile: 'openai',
      faults: [{ kind: 'slow-first-byte', requests: [1], delayMs: 5_000 }],
    });
    const client = createOpenAICompatibleClient({ baseUrl: `${server.url}/v1` });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = (await client
      .send(request(), { signal: controller.signal, stream: true })
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(error.failure).toBe('aborted');
    expect(error.code).toBe('aborted');
  });

  it('never echoes the API key in an error', async () => {
    const server = await emulator({ profile: 'openai', contextLength: 1_024 });
    const client = createOpenAICompatibleClient({ baseUrl: `${server.url}/v1`, apiKey: 'sk-secret-123' });
    const error = (await client
      .send(request('x '.repeat(3_000)))
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(JSON.stringify({ ...error, message: error.message, headers: error.headers })).not.toContain(
      'sk-secret-123',
    );
  });
});

describe('the Anthropic client against the emulator', () => {
  it('streams text and tool calls and counts cache-free input as prompt tokens', async () => {
    const server = await emulator({ profile: 'anthropic' });
    const client = createAnthropicClient({ baseUrl: server.url, apiKey: 'test' });
    const anthropicRequest = { ...request(), format: 'anthropic' as const };
    const plain = await client.send(anthropicRequest);
    const streamed = await client.send(anthropicRequest, { stream: true });
    expect(streamed.message).toEqual(plain.message);
    expect(plain.usage?.promptTokens).toBe(server.requests[0]?.reportedPromptTokens);
    expect(streamed.usage).toEqual(plain.usage);
  });

  it('classifies both Anthropic overflow wordings', async () => {
    const server = await emulator({ profile: 'anthropic', contextLength: 4_096 });
    const client = createAnthropicClient({ baseUrl: server.url, retry: { maxRetries: 0 } });
    const tooLong = (await client
      .send({ ...request('x '.repeat(6_000)), format: 'anthropic' })
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(tooLong.overflow).toMatchObject({ kind: 'context', window: 4_096 });
    const budget = (await client
      .send({ ...request('x '.repeat(1_500)), format: 'anthropic', maxTokens: 4_000 })
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(budget.overflow.kind).toBe('budget');
  });
});

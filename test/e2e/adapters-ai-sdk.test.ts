/**
 * The scripted 40-turn coding session through the AI SDK, against the emulators over loopback:
 * `generateText` with tools and `stopWhen` via `@ai-sdk/openai-compatible`, and `streamText` with
 * thinking via `@ai-sdk/anthropic`. Each server enforces a smaller window than the model catalog
 * states for its model (a gateway deployment, a self-hosted server), so the transcript outgrows it:
 * without the middleware the run fails on the provider's overflow error; with it the run completes.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  APICallError,
  generateText,
  jsonSchema,
  type LanguageModel,
  stepCountIs,
  streamText,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdapterEvent, spillwayMiddleware } from '../../src/adapters/ai-sdk/index.js';
import { classifyOverflow } from '../../src/core/index.js';
import {
  codingAgentScript,
  type Emulator,
  type EmulatorRequestRecord,
  fakeToolResult,
  startEmulator,
} from '../../src/emulator/index.js';

const running: Emulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

async function emulator(options: Parameters<typeof startEmulator>[0]): Promise<Emulator> {
  const started = await startEmulator(options);
  running.push(started);
  return started;
}

/** The tools the coding-agent script calls, answering with the emulator's realistic outputs. */
function codingTools(): ToolSet {
  const define = (name: string, description: string, properties: Record<string, unknown>) =>
    tool({
      description,
      inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object', properties }),
      execute: async (input) => fakeToolResult({ name, args: input }),
    });
  return {
    read_file: define('read_file', 'Read a file of the repository.', { path: { type: 'string' } }),
    search: define('search', 'Search the repository for a pattern.', {
      query: { type: 'string' },
      path: { type: 'string' },
    }),
    run: define('run', 'Run a shell command.', { command: { type: 'string' } }),
  };
}

const session = {
  system: 'You are a coding agent. Use the tools to inspect the repository.',
  prompt: 'Find out why the session tests fail.',
  tools: codingTools(),
  stopWhen: stepCountIs(45),
  maxRetries: 0,
};

/** What the emulator saw since `from`: chat requests, the overflows it answered with. */
function traffic(server: Emulator, from: number): { requests: EmulatorRequestRecord[]; overflows: string[] } {
  const requests = server.requests.slice(from).filter((record) => record.chatNumber !== undefined);
  return {
    requests,
    overflows: requests.flatMap((record) => (record.overflow ? [record.overflow] : [])),
  };
}

/** Every overflow the middleware saw was recovered, and the send after each recovery was accepted. */
function expectRecovered(events: AdapterEvent[], overflows: string[]): void {
  const seen = events.filter((event) => event.type === 'overflow');
  const recoveries = events.filter((event) => event.type === 'recovery');
  expect(seen.length).toBe(overflows.length);
  expect(recoveries.length).toBe(seen.length);
  for (const recovery of recoveries)
    expect(recovery.type === 'recovery' && recovery.action).not.toBe('give_up');
}

describe('spillwayMiddleware against the emulators', () => {
  it('completes the 40-turn session with generateText and stopWhen, recovering the overflow that fails it without', async () => {
    // gpt-4o: the catalog says 128,000 tokens; this deployment serves 16,000.
    const server = await emulator({
      profile: 'openai',
      contextLength: 16_000,
      script: codingAgentScript({ turns: 40 }),
    });
    const provider = createOpenAICompatible({
      name: 'openai',
      baseURL: `${server.url}/v1`,
      apiKey: 'unused',
      includeUsage: true,
    });

    const failure = await generateText({ model: provider.chatModel('gpt-4o'), ...session }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(APICallError.isInstance(failure)).toBe(true);
    expect(classifyOverflow({ error: failure }).kind).not.toBe('none');
    const without = traffic(server, 0);
    expect(without.overflows).toHaveLength(1);
    expect(without.requests.at(-1)?.overflow).toBeDefined();

    const from = server.requests.length;
    const events: AdapterEvent[] = [];
    const model: LanguageModel = wrapLanguageModel({
      model: provider.chatModel('gpt-4o'),
      middleware: spillwayMiddleware({ onEvent: (event) => events.push(event) }),
    });
    const result = await generateText({ model, ...session });
    expect(result.finishReason).toBe('stop');
    expect(result.steps).toHaveLength(41);
    expect(result.steps.flatMap((step) => step.toolCalls)).toHaveLength(40);
    expect(result.text.length).toBeGreaterThan(0);

    const run = traffic(server, from);
    expect(run.overflows.length).toBeGreaterThanOrEqual(1);
    expectRecovered(events, run.overflows);
    expect(run.requests.at(-1)?.status).toBe(200);
    // The history outgrew the learned window and was cut to fit it.
    expect(events.filter((event) => event.type === 'cut').length).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === 'usage').length).toBeGreaterThanOrEqual(41);
  });

  it('streams the same session with streamText and thinking, signatures kept on every reasoning part it sends', async () => {
    // claude-sonnet-4-5: the catalog says 200,000 tokens; this server enforces 24,000.
    const server = await emulator({
      profile: 'anthropic',
      contextLength: 24_000,
      script: codingAgentScript({ turns: 40 }),
    });
    const provider = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'unused' });
    const streamed = {
      ...session,
      maxOutputTokens: 4_096,
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1_024 } } },
    };

    const errors: unknown[] = [];
    const plain = streamText({
      model: provider('claude-sonnet-4-5'),
      ...streamed,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    await plain.consumeStream();
    expect(errors).toHaveLength(1);
    expect(APICallError.isInstance(errors[0])).toBe(true);
    expect(classifyOverflow({ error: errors[0] }).kind).not.toBe('none');
    expect(traffic(server, 0).overflows).toHaveLength(1);

    const from = server.requests.length;
    const events: AdapterEvent[] = [];
    const model = wrapLanguageModel({
      model: provider('claude-sonnet-4-5'),
      middleware: spillwayMiddleware({ onEvent: (event) => events.push(event) }),
    });
    const result = streamText({ model, ...streamed });
    expect(await result.finishReason).toBe('stop');
    const steps = await result.steps;
    expect(steps).toHaveLength(41);
    expect(steps.every((step) => step.reasoning.length > 0)).toBe(true);

    const run = traffic(server, from);
    expect(run.overflows.length).toBeGreaterThanOrEqual(1);
    expectRecovered(events, run.overflows);
    expect(run.requests.at(-1)?.status).toBe(200);
    // Anthropic rejects a thinking block sent back without its signature; every one kept it.
    let thinking = 0;
    for (const record of run.requests) {
      const body = record.body as { messages?: { role: string; content: unknown }[] };
      for (const message of body.messages ?? [])
        if (message.role === 'assistant' && Array.isArray(message.content))
          for (const block of message.content as { type: string; signature?: unknown }[])
            if (block.type === 'thinking') {
              thinking++;
              expect(typeof block.signature).toBe('string');
            }
    }
    expect(thinking).toBeGreaterThan(40);
  });
});

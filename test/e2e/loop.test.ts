import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConversationDriver, type Message } from '../../src/core/index.js';
import { codingAgentScript, type Emulator, startEmulator } from '../../src/emulator/index.js';
import {
  isRetryable,
  type LoopEvent,
  type LoopState,
  parseTerminationReason,
  runToolLoop,
  TERMINATION_REASONS,
} from '../../src/loop/index.js';
import { createOpenAICompatibleClient } from '../../src/providers/index.js';
import { codingTools } from '../support/coding-tools.js';
import { runProcess } from '../support/run-process.js';

const running: Emulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

async function emulator(options: Parameters<typeof startEmulator>[0]): Promise<Emulator> {
  const started = await startEmulator(options);
  running.push(started);
  return started;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs test/fixtures/loop-runner.ts in a new process (asynchronously: the emulators live in this one). */
async function runner(args: string[]): Promise<{ reason: string; text: string; state: LoopState }> {
  const { status, stdout, stderr } = await runProcess(
    process.execPath,
    ['--import', 'tsx', 'test/fixtures/loop-runner.ts', ...args],
    { cwd: root },
  );
  if (status !== 0) throw new Error(`loop runner failed (${status}): ${stderr}`);
  return JSON.parse(stdout);
}

const task: Message[] = [
  { role: 'system', content: 'You are a coding agent. Use the tools to inspect the repository.' },
  { role: 'user', content: 'Find out why the session tests fail.' },
];

describe('runToolLoop against the emulators', () => {
  it('runs a scripted session to completion, streaming, with every send bounded', async () => {
    const server = await emulator({
      profile: 'vllm',
      contextLength: 200_000,
      script: codingAgentScript({ turns: 6 }),
    });
    const client = createOpenAICompatibleClient({ baseUrl: `${server.url}/v1` });
    const events: LoopEvent[] = [];
    const result = await runToolLoop({
      client,
      driver: new ConversationDriver({ contextLength: 200_000, adoptsHistory: true }),
      messages: task,
      tools: codingTools(),
      stream: true,
      onEvent: (event) => events.push(event),
    });
    expect(result.reason).toBe('completed');
    expect(result.state.iterations).toBe(7);
    expect(result.text.length).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === 'fit')).toHaveLength(7);
    expect(result.state.usage.providerCalls).toBe(7);
    expect(result.state.usage.promptTokens).toBe(
      server.requests.reduce((sum, record) => sum + (record.reportedPromptTokens ?? 0), 0),
    );
  });

  it('ends with the synthesis send, without tools, when the iteration cap is hit', async () => {
    const server = await emulator({ profile: 'openai', script: codingAgentScript({ turns: 10 }) });
    const client = createOpenAICompatibleClient({ baseUrl: `${server.url}/v1` });
    const result = await runToolLoop({
      client,
      driver: new ConversationDriver({ contextLength: 128_000, outputCap: 16_384, adoptsHistory: true }),
      messages: task,
      tools: codingTools(),
      maxIterations: 3,
    });
    expect(result.reason).toBe('max_iterations');
    const last = server.requests.at(-1)?.body as { tools?: unknown[] };
    expect(last.tools).toBeUndefined();
    expect(result.state.messages.at(-1)?.role).toBe('assistant');
  });

  it('retries an interrupted stream up to 3 times, then ends with stream_interrupted', async () => {
    const survive = await emulator({
      profile: 'openai',
      script: codingAgentScript({ turns: 1 }),
      faults: [{ kind: 'stream-cut', requests: [1, 2, 3] }],
    });
    const events: LoopEvent[] = [];
    const ok = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${survive.url}/v1` }),
      driver: new ConversationDriver({ contextLength: 128_000, outputCap: 16_384, adoptsHistory: true }),
      messages: task,
      tools: codingTools(),
      stream: true,
      onEvent: (event) => events.push(event),
    });
    expect(ok.reason).toBe('completed');
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(3);
    const broken = await emulator({
      profile: 'openai',
      faults: [{ kind: 'stream-cut', requests: [1, 2, 3, 4] }],
    });
    const failed = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${broken.url}/v1` }),
      driver: new ConversationDriver({ contextLength: 128_000, outputCap: 16_384, adoptsHistory: true }),
      messages: task,
      tools: codingTools(),
      stream: true,
    });
    expect(failed.reason).toBe('stream_interrupted');
    expect(failed.message).toMatch(/broke off 4 times/);
    expect(broken.requests).toHaveLength(4);
  });

  it('retries invalid tool-call JSON once, then ends with a clear message', async () => {
    const once = await emulator({
      profile: 'openai',
      script: codingAgentScript({ turns: 1 }),
      faults: [{ kind: 'invalid-tool-json', requests: [1] }],
    });
    const ok = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${once.url}/v1` }),
      driver: new ConversationDriver({ contextLength: 128_000, outputCap: 16_384, adoptsHistory: true }),
      messages: task,
      tools: codingTools(),
    });
    expect(ok.reason).toBe('completed');
    const twice = await emulator({
      profile: 'openai',
      faults: [{ kind: 'invalid-tool-json', requests: [1, 2] }],
    });
    const failed = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${twice.url}/v1` }),
      driver: new ConversationDriver({ contextLength: 128_000, outputCap: 16_384, adoptsHistory: true }),
      messages: task,
      tools: codingTools(),
    });
    expect(failed.reason).toBe('invalid_tool_arguments');
    expect(failed.message).not.toMatch(/Unexpected end of JSON input/);
    expect(twice.requests).toHaveLength(2);
  });

  it('ends with context_truncated, without calling the provider, when nothing fits', async () => {
    const server = await emulator({ profile: 'openai' });
    // About 40,000 tokens: even the least the estimate allows it is over the 8,192-token window.
    const huge: Message[] = [{ role: 'user', content: 'word '.repeat(40_000) }];
    const result = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${server.url}/v1` }),
      driver: new ConversationDriver({ contextLength: 8_192, adoptsHistory: true }),
      messages: huge,
      tools: codingTools(),
    });
    expect(result.reason).toBe('context_truncated');
    expect(isRetryable(result.reason)).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('stops at once on abort and never retries it', async () => {
    const server = await emulator({
      profile: 'openai',
      faults: [{ kind: 'slow-first-byte', requests: [1], delayMs: 5_000 }],
    });
    const controller = new AbortController();
    // Abort while the server holds the first request (however long the client took to send it).
    const received = (async () => {
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
    })();
    const result = await runToolLoop({
      client: createOpenAICompatibleClient({ baseUrl: `${server.url}/v1` }),
      driver: new ConversationDriver({ contextLength: 128_000, outputCap: 16_384, adoptsHistory: true }),
      messages: task,
      tools: codingTools(),
      stream: true,
      signal: controller.signal,
    });
    await received;
    expect(result.reason).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('suspends after a turn and resumes in a new process to the same result as an uninterrupted run', async () => {
    const script = codingAgentScript({ turns: 5, seed: 3 });
    const straightServer = await emulator({ profile: 'anthropic', script });
    const server = await emulator({ profile: 'anthropic', script });
    const directory = mkdtempSync(join(tmpdir(), 'spillway-resume-'));
    const stateFile = join(directory, 'state.json');
    try {
      const straight = await runner([straightServer.url, 'straight']);
      const suspended = await runner([server.url, 'suspend', '2', stateFile]);
      expect(suspended.reason).toBe('suspended');
      expect(suspended.state.iterations).toBe(2);
      const resumed = await runner([server.url, 'resume', stateFile]);
      expect(straight.reason).toBe('completed');
      expect(resumed.reason).toBe(straight.reason);
      expect(resumed.text).toBe(straight.text);
      expect(resumed.state.messages).toEqual(straight.state.messages);
      expect(resumed.state.usage).toEqual(straight.state.usage);
      expect(resumed.state.driver?.manager.calibration).toEqual(straight.state.driver?.manager.calibration);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('termination reasons', () => {
  it('round-trip through their string values', () => {
    for (const reason of TERMINATION_REASONS) expect(parseTerminationReason(String(reason))).toBe(reason);
    expect(parseTerminationReason('nope')).toBeUndefined();
    expect(isRetryable('completed')).toBe(false);
    expect(isRetryable('stream_interrupted')).toBe(true);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { ConversationDriver, type Message } from '../../src/core/index.js';
import {
  codingAgentScript,
  type Emulator,
  type EmulatorProfileName,
  FAULT_KINDS,
  type FaultKind,
  startEmulator,
} from '../../src/emulator/index.js';
import { type LoopEvent, runToolLoop, type TerminationReason } from '../../src/loop/index.js';
import {
  createAnthropicClient,
  createOpenAICompatibleClient,
  type ModelClient,
} from '../../src/providers/index.js';
import { codingTools } from '../support/coding-tools.js';

const running: Emulator[] = [];
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
});

const task: Message[] = [
  { role: 'system', content: 'You are a coding agent. Use the tools to inspect the repository.' },
  { role: 'user', content: 'Find out why the session tests fail, then explain the fix.' },
];

function clientFor(profile: EmulatorProfileName, url: string): ModelClient {
  return profile === 'anthropic'
    ? createAnthropicClient({ baseUrl: url })
    : createOpenAICompatibleClient({
        baseUrl: `${url}/v1`,
        retry: { maxRetries: 3, sleep: async () => undefined },
      });
}

interface Case {
  profile: EmulatorProfileName;
  /** What the server enforces. */
  enforced: number;
  /** What the manager is told (a wrong, larger window is how real sessions get stuck). */
  configured: number;
  outputCap?: number;
  scale?: number;
  /** The overflow kinds the run must have hit, or 'silent' for a truncation seen only in usage. */
  expect: 'overflow' | 'silent';
}

const CASES: Case[] = [
  { profile: 'openai', enforced: 16_000, configured: 40_000, outputCap: 4_096, expect: 'overflow' },
  { profile: 'anthropic', enforced: 16_000, configured: 40_000, outputCap: 4_096, expect: 'overflow' },
  { profile: 'vllm', enforced: 16_000, configured: 40_000, outputCap: 4_096, expect: 'overflow' },
  {
    profile: 'litellm-vllm',
    enforced: 21_000,
    configured: 60_000,
    outputCap: 4_096,
    scale: 0.1,
    expect: 'overflow',
  },
  { profile: 'llamacpp', enforced: 8_192, configured: 40_000, outputCap: 2_048, expect: 'overflow' },
  { profile: 'localai', enforced: 8_192, configured: 40_000, outputCap: 2_048, expect: 'overflow' },
  { profile: 'ollama', enforced: 8_192, configured: 40_000, outputCap: 4_096, expect: 'silent' },
];

describe('a 40-turn scripted coding session through the tool loop, per profile', () => {
  it.each(CASES)(
    '$profile completes, recovering what it hit',
    async ({ profile, enforced, configured, outputCap, scale, expect: hit }) => {
      const server = await startEmulator({
        profile,
        ...(scale === undefined ? { contextLength: enforced } : { scale }),
        script: codingAgentScript({ turns: 40, seed: 11 }),
        seed: 11,
      });
      running.push(server);
      const events: LoopEvent[] = [];
      const driver = new ConversationDriver({
        contextLength: configured,
        ...(outputCap ? { outputCap } : {}),
        model: 'emulated',
        adoptsHistory: true,
      });
      const { manager } = driver;
      const result = await runToolLoop({
        client: clientFor(profile, server.url),
        driver,
        model: 'emulated',
        messages: task,
        tools: codingTools({ seed: 11, size: 900 }),
        maxIterations: 60,
        stream: profile !== 'localai',
        onEvent: (event) => events.push(event),
      });
      expect(result.reason, result.message).toBe('completed' satisfies TerminationReason);
      expect(result.state.iterations).toBe(41);
      const rejected = server.requests.filter((record) => record.overflow !== undefined);
      const recoveries = events.filter((event) => event.type === 'recovery');
      if (hit === 'overflow') {
        expect(rejected.length).toBeGreaterThanOrEqual(1);
        // One recovery per rejection, each followed by an accepted send: nothing is retried unchanged.
        expect(recoveries.length).toBe(rejected.length);
        expect(rejected.length).toBeLessThanOrEqual(3);
      } else {
        expect(rejected).toEqual([]);
        expect(events.some((event) => event.type === 'notice' && /truncat/i.test(event.message))).toBe(true);
      }
      expect(manager.windowFor('emulated')).toBeLessThanOrEqual(Math.max(enforced, configured));
      // What the server took in (after its own truncation, for Ollama) never exceeded its window.
      const accepted = server.requests.filter((record) => record.reportedPromptTokens !== undefined);
      expect(Math.max(...accepted.map((record) => record.reportedPromptTokens ?? 0))).toBeLessThanOrEqual(
        enforced,
      );
    },
  );
});

describe('every emulator fault through the tool loop', () => {
  // A reply cut at max_tokens loses the tool call it was about to make: the run ends there, and says so.
  const expected: Record<FaultKind, TerminationReason> = {
    'stream-cut': 'completed',
    'invalid-tool-json': 'completed',
    truncate: 'completed',
    'rate-limit': 'completed',
    'server-error': 'completed',
    unavailable: 'completed',
    'slow-first-byte': 'completed',
    'malformed-sse': 'completed',
  };
  it.each(FAULT_KINDS.map((kind) => [kind, expected[kind]] as const))(
    'survives %s (ends %s)',
    async (kind, reason) => {
      const server = await startEmulator({
        profile: 'openai',
        script: codingAgentScript({ turns: 3 }),
        faults: [{ kind, requests: [2], retryAfter: 0, delayMs: 200 }],
      });
      running.push(server);
      const result = await runToolLoop({
        client: createOpenAICompatibleClient({
          baseUrl: `${server.url}/v1`,
          retry: { maxRetries: 2, sleep: async () => undefined },
        }),
        driver: new ConversationDriver({ contextLength: 128_000, outputCap: 4_096, adoptsHistory: true }),
        messages: task,
        tools: codingTools(),
        stream: true,
      });
      expect(result.reason, result.message).toBe(reason);
      if (kind === 'truncate') {
        expect(result.state.iterations).toBe(2);
        expect(result.message).toMatch(/cut off at max_tokens/);
      } else {
        expect(result.state.iterations).toBe(4);
      }
    },
  );
});

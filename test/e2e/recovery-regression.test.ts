/**
 * The regression scenario of the recovery issue, over HTTP against the `litellm-vllm` emulator at
 * 1:10 scale: LiteLLM advertises 9,600 input and 9,600 output tokens, vLLM behind it enforces 21,000
 * on prompt + max_tokens. A plain client that trusts the advertised cap (max_tokens = 9,600) fails
 * from the first prompt above 21,000 - 9,600 = 11,400 tokens and never recovers. Spillway starts
 * from a window that is wrong the other way (32,768, a model card's figure this deployment does not
 * serve), learns the real one from the first rejection, and keeps going past the old failure point.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConversationDriver,
  type Message,
  type RecoveryAction,
  type RecoveryStep,
  type TokenCounter,
} from '../../src/core/index.js';
import {
  type Emulator,
  type EmulatorRequestRecord,
  fakeToolResult,
  startEmulator,
} from '../../src/emulator/index.js';
import { clientSummarizer, definitionOf, runToolLoop } from '../../src/loop/index.js';
import { createOpenAICompatibleClient, type ModelClient } from '../../src/providers/index.js';
import { createGptTokenizerCounter } from '../../src/tokenizers/index.js';
import { codingTools } from '../support/coding-tools.js';

const ENFORCED = 21_000;
const OLD_FAILURE_POINT = 11_400;
/** What Spillway believes before the first rejection: a model card's window, larger than vLLM's. */
const BELIEVED_WINDOW = 32_768;
/** Room kept for the reply; max_tokens still goes up to the cap when the prompt leaves room. */
const RESERVE = 4_096;

const SYSTEM = 'You are a coding agent working in a TypeScript repository. Use the tools; be brief.';
const steps = Array.from(
  { length: 15 },
  (_, index) => `Step ${index + 1}: look at src/module${index}/index.ts and tell me what to change.`,
);
const paste = `Here is the whole build log, please find the error:\n${fakeToolResult({
  name: 'run',
  args: { command: 'npm run build' },
  seed: 3,
  size: 9_000,
})}`;
/** Three turns, the paste, twelve more turns. */
const script = [...steps.slice(0, 3), paste, ...steps.slice(3)];

let emulator: Emulator;
let client: ModelClient;
let advertised: { max_input_tokens: number; max_output_tokens: number };
let model: string;

beforeAll(async () => {
  emulator = await startEmulator({ profile: 'litellm-vllm', scale: 0.1, seed: 7 });
  client = createOpenAICompatibleClient({ baseUrl: `${emulator.url}/v1`, retry: { maxRetries: 0 } });
  const info = (await (await fetch(`${emulator.url}/v1/model/info`)).json()) as {
    data: Array<{ model_name: string; model_info: typeof advertised }>;
  };
  advertised = info.data[0]?.model_info as typeof advertised;
  model = info.data[0]?.model_name as string;
});
afterAll(async () => {
  await emulator.close();
});

/** How one user turn ended. */
interface TurnOutcome {
  ok: boolean;
  toolCalls: number;
  recovery?: { action: RecoveryAction; steps: RecoveryStep[] };
}

/**
 * A conversation of user turns, each a tool-loop run of one tool turn and an answer. A turn that
 * fails is taken back (its own messages only), as an agent would before the next prompt.
 */
class Conversation {
  history: Message[] = [{ role: 'system', content: SYSTEM }];
  #turn = 0;
  constructor(readonly driver: ConversationDriver | undefined) {}

  async turn(text: string): Promise<TurnOutcome> {
    this.#turn++;
    const before = this.history;
    let toolCalls = 0;
    let recovery: TurnOutcome['recovery'];
    const result = await runToolLoop({
      client,
      model,
      messages: [...this.history, { role: 'user', content: text }],
      tools: codingTools({ seed: 11 + this.#turn, size: 1_200 }),
      maxIterations: 1,
      summarize: clientSummarizer(client, model),
      ...(this.driver ? { driver: this.driver } : { maxTokens: advertised.max_output_tokens }),
      onEvent: (event) => {
        if (event.type === 'tool-end') toolCalls++;
        if (event.type === 'recovery') recovery = { action: event.action, steps: event.steps };
      },
    });
    const ok = result.reason === 'completed' || result.reason === 'max_iterations';
    this.history = ok ? result.state.messages : before;
    return { ok, toolCalls, ...(recovery ? { recovery } : {}) };
  }
}

interface Run {
  outcomes: TurnOutcome[];
  /** The script's requests. */
  records: EmulatorRequestRecord[];
  /** The requests of what ran after the script (a compaction's summary requests, a last turn). */
  afterRecords: EmulatorRequestRecord[];
}

const chatRecords = (from: number) =>
  emulator.requests.slice(from).filter((record) => record.path === '/v1/chat/completions');

async function runScript(conversation: Conversation, after?: () => Promise<void>): Promise<Run> {
  const start = emulator.requests.length;
  const outcomes: TurnOutcome[] = [];
  for (const text of script) outcomes.push(await conversation.turn(text));
  const records = chatRecords(start);
  const afterStart = emulator.requests.length;
  await after?.();
  return { outcomes, records, afterRecords: chatRecords(afterStart) };
}

function spillwayDriver(counter?: TokenCounter): ConversationDriver {
  return new ConversationDriver({
    contextLength: BELIEVED_WINDOW,
    outputCap: advertised.max_output_tokens,
    reserve: RESERVE,
    model,
    adoptsHistory: true,
    ...(counter ? { counter } : {}),
  });
}

/** A manual compaction (`/compact`) of the whole history with the driver's manager. */
async function compact(conversation: Conversation) {
  const manager = (conversation.driver as ConversationDriver).manager;
  const result = await manager.compact({
    messages: conversation.history,
    tools: codingTools().map(definitionOf),
    model,
    summarize: clientSummarizer(client, model),
  });
  if (result.ok) conversation.history = result.messages;
  return result;
}

const accepted = (records: EmulatorRequestRecord[]) =>
  records.filter((record) => record.status === 200).map((record) => record.promptTokens ?? 0);

describe('the regression scenario: LiteLLM advertises 9,600 / 9,600, vLLM enforces 21,000', () => {
  it('advertises limits that differ from what the backend enforces', () => {
    expect(advertised.max_input_tokens).toBe(9_600);
    expect(advertised.max_output_tokens).toBe(9_600);
    expect(ENFORCED - advertised.max_output_tokens).toBe(OLD_FAILURE_POINT);
  });

  it('without Spillway, fails from the first prompt above ~11,400 tokens and never recovers', async () => {
    const { outcomes, records } = await runScript(new Conversation(undefined));
    expect(outcomes.slice(0, 3).every((outcome) => outcome.ok)).toBe(true);
    expect(outcomes[3]?.ok).toBe(false);
    for (const record of records) {
      expect(record.maxTokens).toBe(9_600);
      expect(record.status === 200).toBe((record.promptTokens ?? 0) <= OLD_FAILURE_POINT);
    }
    expect(
      records.filter((record) => record.status !== 200).every((record) => record.overflow === 'budget'),
    ).toBe(true);
    const firstFailureAfterPaste = outcomes.findIndex((outcome, index) => index > 3 && !outcome.ok);
    expect(outcomes.slice(firstFailureAfterPaste).every((outcome) => !outcome.ok)).toBe(true);
    expect(outcomes.filter((outcome) => outcome.ok).length).toBeLessThanOrEqual(8);
  });

  it('with Spillway, the paste fails once and teaches the real window; 12 more turns pass past the old failure point; a manual compaction succeeds', async () => {
    const conversation = new Conversation(spillwayDriver(createGptTokenizerCounter('o200k_base')));
    let compaction: Awaited<ReturnType<typeof compact>> | undefined;
    let afterCompaction: TurnOutcome | undefined;
    const { outcomes, records, afterRecords } = await runScript(conversation, async () => {
      compaction = await compact(conversation);
      afterCompaction = await conversation.turn('Now write the fix for src/module14/index.ts.');
    });
    // Three turns pass.
    expect(outcomes.slice(0, 3).every((outcome) => outcome.ok && outcome.toolCalls > 0)).toBe(true);
    // The paste's request is rejected, the window learned from the error, the turn recovered.
    const rejected = records.filter((record) => record.status !== 200);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.overflow).toBe('budget');
    expect(rejected[0]?.promptTokens).toBeGreaterThan(OLD_FAILURE_POINT);
    expect(outcomes[3]?.ok).toBe(true);
    expect(outcomes[3]?.recovery?.action).toBe('lower_max_tokens');
    expect(outcomes[3]?.recovery?.steps).toContainEqual({ step: 'learn_window', model, window: ENFORCED });
    expect(conversation.driver?.manager.windowFor(model)).toBe(ENFORCED);
    // Twelve more tool-using turns pass, prompts past the old failure point, none rejected.
    const later = outcomes.slice(4);
    expect(later).toHaveLength(12);
    expect(later.every((outcome) => outcome.ok && outcome.toolCalls > 0 && !outcome.recovery)).toBe(true);
    const afterPaste = records.slice(records.indexOf(rejected[0] as EmulatorRequestRecord) + 2);
    expect(afterPaste.every((record) => record.status === 200)).toBe(true);
    expect(Math.max(...accepted(records))).toBeGreaterThan(OLD_FAILURE_POINT);
    expect(
      afterPaste.filter((record) => (record.promptTokens ?? 0) > OLD_FAILURE_POINT).length,
    ).toBeGreaterThan(10);
    for (const record of records.filter((r) => r.status === 200))
      expect((record.promptTokens ?? 0) + (record.maxTokens ?? 0)).toBeLessThanOrEqual(ENFORCED);
    // A manual compaction succeeds afterwards, and the session goes on. A summary request the
    // estimate planned a little low is shrunk by the overshoot its error states, once at most.
    expect(compaction?.ok).toBe(true);
    expect(afterRecords.filter((record) => record.status !== 200).length).toBeLessThanOrEqual(1);
    expect(afterRecords.at(-1)?.status).toBe(200);
    expect(compaction?.estimate).toBeLessThanOrEqual(compaction?.budget ?? 0);
    expect(afterCompaction?.ok).toBe(true);
  });

  it('with Spillway’s own estimator, the same script passes too: every rejection recovered in its turn, the window learned', async () => {
    const conversation = new Conversation(spillwayDriver());
    let compaction: Awaited<ReturnType<typeof compact>> | undefined;
    const { outcomes, records } = await runScript(conversation, async () => {
      compaction = await compact(conversation);
    });
    expect(outcomes.every((outcome) => outcome.ok && outcome.toolCalls > 0)).toBe(true);
    expect(outcomes.filter((outcome) => outcome.recovery).length).toBeLessThanOrEqual(1);
    expect(conversation.driver?.manager.windowFor(model)).toBe(ENFORCED);
    expect(compaction?.ok).toBe(true);
    expect(records.filter((record) => record.status !== 200).length).toBeLessThanOrEqual(2);
  });
});

/**
 * The regression scenario of the recovery issue, over HTTP against the `litellm-vllm` emulator at
 * 1:10 scale: LiteLLM advertises 9,600 input and 9,600 output tokens, vLLM behind it enforces 21,000
 * on prompt + max_tokens. A plain client that trusts the advertised cap (max_tokens = 9,600) fails
 * from the first prompt above 21,000 - 9,600 = 11,400 tokens and never recovers. Spillway starts
 * from a window that is wrong the other way (32,768, a model card's figure this deployment does not
 * serve), learns the real one from the first rejection, and keeps going past the old failure point.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextWindowManager, type TokenCounter } from '../../src/core/index.js';
import {
  type Emulator,
  type EmulatorRequestRecord,
  fakeToolResult,
  startEmulator,
} from '../../src/emulator/index.js';
import { createOpenAICompatibleClient, type ModelClient } from '../../src/providers/index.js';
import { createGptTokenizerCounter } from '../../src/tokenizers/index.js';
import { clientSummarizer, RecoveryDriver, type TurnOutcome } from '../support/recovery-driver.js';

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

interface Run {
  outcomes: TurnOutcome[];
  records: EmulatorRequestRecord[];
  driver: RecoveryDriver;
}

async function runScript(
  driver: RecoveryDriver,
  after?: (driver: RecoveryDriver) => Promise<void>,
): Promise<Run> {
  const start = emulator.requests.length;
  const outcomes: TurnOutcome[] = [];
  for (const text of script) outcomes.push(await driver.turn(text));
  await after?.(driver);
  const records = emulator.requests.slice(start).filter((record) => record.path === '/v1/chat/completions');
  return { outcomes, records, driver };
}

function spillwayDriver(counter?: TokenCounter): { driver: RecoveryDriver; manager: ContextWindowManager } {
  const manager = new ContextWindowManager({
    contextLength: BELIEVED_WINDOW,
    outputCap: advertised.max_output_tokens,
    reserve: RESERVE,
    model,
    ...(counter ? { counter } : {}),
  });
  const driver = new RecoveryDriver({
    client,
    model,
    system: SYSTEM,
    manager,
    summarize: clientSummarizer(client),
    seed: 11,
  });
  return { driver, manager };
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
    const driver = new RecoveryDriver({
      client,
      model,
      system: SYSTEM,
      maxTokens: advertised.max_output_tokens,
      seed: 11,
    });
    const { outcomes, records } = await runScript(driver);
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
    expect(outcomes.filter((outcome) => outcome.ok).length).toBeLessThan(8);
    console.info(
      `plain client: ${outcomes.filter((outcome) => outcome.ok).length}/${outcomes.length} turns passed, ${records.length} provider calls, largest accepted prompt ${Math.max(...accepted(records))}, smallest rejected ${Math.min(...records.filter((record) => record.status !== 200).map((record) => record.promptTokens ?? 0))}`,
    );
  });

  it('with Spillway, the paste fails once and teaches the real window; 12 more turns pass past the old failure point; a manual compaction succeeds', async () => {
    const { driver, manager } = spillwayDriver(createGptTokenizerCounter('o200k_base'));
    let compaction: Awaited<ReturnType<RecoveryDriver['compact']>> | undefined;
    let afterCompaction: TurnOutcome | undefined;
    const { outcomes, records } = await runScript(driver, async (run) => {
      compaction = await run.compact();
      afterCompaction = await run.turn('Now write the fix for src/module14/index.ts.');
    });
    // Three turns pass.
    expect(outcomes.slice(0, 3).every((outcome) => outcome.ok && outcome.toolCalls > 0)).toBe(true);
    // The paste's request is rejected, the window learned from the error, the turn recovered.
    const rejected = records.filter((record) => record.status !== 200);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.overflow).toBe('budget');
    expect(rejected[0]?.promptTokens).toBeGreaterThan(OLD_FAILURE_POINT);
    expect(outcomes[3]).toMatchObject({
      ok: true,
      recovery: { action: 'lower_max_tokens', window: ENFORCED },
    });
    expect(manager.windowFor(model)).toBe(ENFORCED);
    // Twelve more tool-using turns pass, prompts past the old failure point, none rejected.
    const later = outcomes.slice(4);
    expect(later).toHaveLength(12);
    expect(later.every((outcome) => outcome.ok && outcome.toolCalls > 0 && !outcome.recovery)).toBe(true);
    const afterPaste = records.slice(records.indexOf(rejected[0] as EmulatorRequestRecord) + 2);
    expect(afterPaste.every((record) => record.status === 200)).toBe(true);
    const largest = Math.max(...accepted(records));
    expect(largest).toBeGreaterThan(OLD_FAILURE_POINT);
    expect(
      afterPaste.filter((record) => (record.promptTokens ?? 0) > OLD_FAILURE_POINT).length,
    ).toBeGreaterThan(10);
    for (const record of records.filter((r) => r.status === 200))
      expect((record.promptTokens ?? 0) + (record.maxTokens ?? 0)).toBeLessThanOrEqual(ENFORCED);
    // A manual compaction succeeds afterwards, and the session goes on.
    expect(compaction?.ok).toBe(true);
    expect(compaction?.estimate).toBeLessThanOrEqual(compaction?.budget ?? 0);
    expect(afterCompaction?.ok).toBe(true);
    console.info(
      `spillway (o200k counter): ${outcomes.filter((outcome) => outcome.ok).length}/${outcomes.length} turns passed, ${records.length} provider calls (${rejected.length} rejected), largest accepted prompt ${largest}, learned window ${manager.windowFor(model)}, manual compaction ${compaction?.kind} in ${compaction?.summaryRequests} summary requests: ${compaction?.before} → ${compaction?.estimate} tokens; the paste: ${outcomes[3]?.recovery?.steps.join('; ')}`,
    );
  });

  it('with Spillway’s own estimator, the same script passes too: every rejection recovered in its turn, the window learned', async () => {
    const { driver, manager } = spillwayDriver();
    let compaction: Awaited<ReturnType<RecoveryDriver['compact']>> | undefined;
    const { outcomes, records } = await runScript(driver, async (run) => {
      compaction = await run.compact();
    });
    // How much of the window the estimator's over-count leaves for prompts depends on its weights,
    // so this run asserts what must hold whatever they are.
    expect(outcomes.every((outcome) => outcome.ok && outcome.toolCalls > 0)).toBe(true);
    expect(outcomes.filter((outcome) => outcome.recovery).length).toBeLessThanOrEqual(1);
    expect(manager.windowFor(model)).toBe(ENFORCED);
    expect(compaction?.ok).toBe(true);
    const rejected = records.filter((record) => record.status !== 200);
    expect(rejected.length).toBeLessThanOrEqual(2);
    console.info(
      `spillway (estimator): ${outcomes.filter((outcome) => outcome.ok).length}/${outcomes.length} turns passed, ${records.length} provider calls (${rejected.length} rejected, each recovered), largest accepted prompt ${Math.max(...accepted(records))}${compaction?.learnedWindow ? `, window learned from the manual compaction's summary request` : ''}`,
    );
  });
});

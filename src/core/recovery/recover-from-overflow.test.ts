import { describe, expect, it } from 'vitest';
import {
  charCounter,
  codingSession,
  providerRejection,
  recordingSummarizer,
  sourceOutput,
  toolTurn,
} from '../../../test/support/compaction-fixtures.js';
import type { Summarizer } from '../compact/index.js';
import { ContextTruncatedError } from '../errors/index.js';
import { ContextWindowManager } from '../manager/index.js';
import type { OverflowInfo } from '../overflow/index.js';
import { scalarFactor } from '../tokens/index.js';
import { type ChatRequest, contentText, type Message, validatePairing } from '../transcript/index.js';
import { recoverFromOverflow } from './recover-from-overflow.js';
import type { RecoveryResult, RecoveryStep } from './recovery-result.js';

const MODEL = 'test-model';

/** The fields a result has only for some actions, read uniformly. */
const requestOf = (result: RecoveryResult) => (result.action === 'give_up' ? undefined : result.request);
const messagesOf = (result: RecoveryResult) => ('messages' in result ? result.messages : undefined);
const removedOf = (result: RecoveryResult) => ('removed' in result ? result.removed : []);
const recallOf = (result: RecoveryResult) => ('recall' in result ? result.recall : undefined);
const step = (fields: Partial<RecoveryStep> & { step: RecoveryStep['step'] }) =>
  expect.objectContaining(fields);

function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { format: 'openai', model: MODEL, messages, tools: [], extra: {}, ...extra };
}

function context(window: number): OverflowInfo {
  return { kind: 'context', window, pattern: 'test' };
}

function expectNothingLost(history: readonly Message[], result: RecoveryResult) {
  const kept = new Set(messagesOf(result) ?? history);
  for (const message of history) expect(kept.has(message) || removedOf(result).includes(message)).toBe(true);
}

/** The retry fits the learned window: its prompt within the budget, prompt + max_tokens within the window. */
function fits(manager: ContextWindowManager, sent: ChatRequest | undefined) {
  expect(sent).toBeDefined();
  const { maxTokens, ...prompt } = sent as ChatRequest;
  const measured = manager.measure(prompt);
  expect(measured.estimate).toBeLessThanOrEqual(measured.budget);
  expect(measured.estimate + (maxTokens ?? 0)).toBeLessThanOrEqual(measured.window);
  expect(validatePairing(prompt.messages).ok).toBe(true);
}

describe('recoverFromOverflow: budget', () => {
  it('retries with max_tokens = window - stated input - 512 and never compacts, learning the window', async () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      contextLength: 32_768,
      outputCap: 9_600,
      reserve: 2_048,
    });
    const history = codingSession({ turns: 6, lines: 20 });
    const summarize = recordingSummarizer();
    const overflow: OverflowInfo = {
      kind: 'budget',
      window: 21_000,
      input: 5_001,
      output: 9_600,
      pattern: 'vllm',
    };
    const result = await recoverFromOverflow({ request: request(history), overflow, manager, summarize });
    // The count the provider stated is the truth: the new max_tokens leaves room for exactly it.
    expect(result.action).toBe('lower_max_tokens');
    expect(requestOf(result)?.maxTokens).toBe(Math.min(9_600, 21_000 - 5_001 - 512));
    expect(result.steps).toContainEqual(
      step({ step: 'lower_max_tokens', window: 21_000, input: 5_001, inputSource: 'stated' }),
    );
    expect(requestOf(result)?.messages).toBe(history);
    expect(removedOf(result)).toEqual([]);
    expect(messagesOf(result)).toBeUndefined();
    expect(summarize.requests).toHaveLength(0);
    expect(manager.windowFor(MODEL)).toBe(21_000);
    expect(result.window).toBe(21_000);
  });

  it('treats a budget overflow that leaves less than 1,024 tokens for the reply as context', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 32_768 });
    const history = codingSession({ turns: 12, lines: 40 });
    const estimate = manager.measure(request(history)).estimate;
    const overflow: OverflowInfo = {
      kind: 'budget',
      window: estimate + 600,
      input: estimate - 10,
      output: 4_096,
      pattern: 'vllm',
    };
    const result = await recoverFromOverflow({ request: request(history), overflow, manager });
    expect(result.steps).toContainEqual({ step: 'treat_as_context', reason: 'no_room_for_reply' });
    expect(result.action).not.toBe('lower_max_tokens');
  });
});

describe('recoverFromOverflow: output_cap', () => {
  it('lowers the cap once to what the error states, learns it, and never raises it', async () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      contextLength: 128_000,
      outputCap: 16_384,
    });
    const history = codingSession({ turns: 2, lines: 5 });
    const overflow: OverflowInfo = {
      kind: 'output_cap',
      output: 16_384,
      outputLimit: 4_096,
      pattern: 'openai',
    };
    const result = await recoverFromOverflow({ request: request(history), overflow, manager });
    expect(result.action).toBe('lower_output_cap');
    expect(requestOf(result)?.maxTokens).toBe(4_096);
    expect(manager.outputCapFor(MODEL)).toBe(4_096);

    const higher: OverflowInfo = { kind: 'output_cap', output: 4_096, outputLimit: 50_000, pattern: 'odd' };
    const again = await recoverFromOverflow({ request: request(history), overflow: higher, manager });
    expect(requestOf(again)?.maxTokens).toBeLessThan(4_096);
    expect(manager.outputCapFor(MODEL)).toBeLessThan(4_096);
  });
});

describe('recoverFromOverflow: the context chain', () => {
  it('compacts with the summarizer and retries with a request that fits', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
    const history = codingSession({ turns: 16, lines: 40 });
    const summarize = recordingSummarizer();
    const result = await recoverFromOverflow({
      request: request(history),
      overflow: context(12_000),
      manager,
      summarize,
    });
    expect(result.action).toBe('compacted');
    expect(result.steps).toContainEqual({ step: 'learn_window', model: MODEL, window: 12_000 });
    expect(result.steps).toContainEqual(step({ step: 'compaction', outcome: 'ok' }));
    fits(manager, requestOf(result));
    expect(removedOf(result).length).toBeGreaterThan(0);
    expect(recallOf(result)?.[0]?.messages).toEqual(removedOf(result));
    expectNothingLost(history, result);
  });

  it('keeps a compaction that is smaller but still over the budget and builds a smaller kept tail on it', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
    const history = codingSession({ turns: 14, lines: 40 });
    let calls = 0;
    // The first summary is long; the next, written over it with half the kept tail, is short.
    const summarize: Summarizer = async () => {
      calls++;
      return { text: calls === 1 ? `Long summary. ${'detail '.repeat(4_200)}` : 'Short summary.' };
    };
    const result = await recoverFromOverflow({
      request: request(history),
      // A stated input no higher than the estimate: the calibration stays as it is.
      overflow: { ...context(11_000), input: 10_000 },
      manager,
      summarize,
      summaryMaxTokens: 2_048,
    });
    expect(result.steps).toContainEqual(step({ step: 'compaction', outcome: 'over_budget' }));
    expect(result.steps).toContainEqual(step({ step: 'compaction', keepTurns: 1, outcome: 'ok' }));
    expect(result.action).toBe('compacted');
    fits(manager, requestOf(result));
    expectNothingLost(history, result);
    // The final placeholder stands for every original message compacted away, across both steps.
    expect(recallOf(result)?.at(-1)?.messages).toEqual(removedOf(result));
  });

  it('rolls a compaction whose summary request overflows back to a smaller request (the shrink), then fits', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
    const history = codingSession({ turns: 16, lines: 40 });
    let calls = 0;
    const summarize: Summarizer = async () => {
      calls++;
      if (calls === 1)
        throw providerRejection(
          "This model's maximum context length is 12000 tokens. However, your messages resulted in 13000 tokens. Please reduce the length of the messages.",
        );
      return { text: 'Summary.' };
    };
    const result = await recoverFromOverflow({
      request: request(history),
      overflow: context(12_000),
      manager,
      summarize,
    });
    expect(result.action).toBe('compacted');
    expect(calls).toBeGreaterThan(1);
    fits(manager, requestOf(result));
    expectNothingLost(history, result);
  });

  it('without a summarizer, stubs every tool result outside the newest run when that is enough (forced prune)', async () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      contextLength: 64_000,
      model: MODEL,
      compress: false,
    });
    const history = codingSession({ turns: 10, lines: 60 });
    const result = await recoverFromOverflow({
      request: request(history),
      overflow: context(12_000),
      manager,
    });
    expect(result.action).toBe('truncated');
    expect(result.steps).toContainEqual(step({ step: 'forced_prune', stubbed: 9 }));
    expect(removedOf(result)).toEqual([]);
    const stubs = requestOf(result)?.messages.filter(
      (message) => message.role === 'tool' && contentText(message.content).startsWith('[elided #'),
    );
    expect(stubs).toHaveLength(9);
    expect(requestOf(result)?.messages.at(-2)).toBe(history.at(-2));
    fits(manager, requestOf(result));
  });

  it('truncates hard to a marker and the newest whole turns when stubs are not enough', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
    const history: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Write the report.' },
    ];
    for (let turn = 0; turn < 12; turn++)
      history.push({
        role: 'assistant',
        content: `Draft ${turn}: ${'the report continues with more prose '.repeat(60)}`,
      });
    history.push({ role: 'user', content: 'Now shorten it.' });
    const result = await recoverFromOverflow({
      request: request(history),
      overflow: context(6_000),
      manager,
    });
    expect(result.action).toBe('truncated');
    expect(contentText(messagesOf(result)?.[2]?.content ?? '')).toMatch(
      /^\[truncated #\d+: \d+ earlier messages removed/,
    );
    expect(messagesOf(result)?.slice(0, 2)).toEqual(history.slice(0, 2));
    expect(messagesOf(result)?.at(-1)).toBe(history.at(-1));
    expect(recallOf(result)?.[0]).toMatchObject({ kind: 'truncation', messages: removedOf(result) });
    fits(manager, requestOf(result));
    expectNothingLost(history, result);
  });

  /** A long spec, a small read and a large one, then `after`; recovered in a 5,000-token window. */
  const spec = `Here is the spec:\n${'the service must do this and that '.repeat(200)}`;
  const big = sourceOutput(220, 'big');
  const specSession = (after: Message[]): Message[] => [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: spec },
    ...toolTurn('c1', 'read_file', 'src/a.ts', sourceOutput(30, 'a')),
    ...toolTurn('c2', 'read_file', 'src/big.ts', big),
    ...after,
  ];
  const recoverAt5k = (history: Message[], options: { recall?: boolean } = {}) => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      contextLength: 64_000,
      model: MODEL,
      ...options,
    });
    return recoverFromOverflow({ request: request(history), overflow: context(5_000), manager }).then(
      (result) => ({ result, manager }),
    );
  };

  it("shortens the newest turn's tool results, never the user's text, when even the newest turn is too large", async () => {
    const history = specSession([{ role: 'user', content: 'Forget that file; just summarize the spec.' }]);
    const { result, manager } = await recoverAt5k(history);
    expect(result.steps).toContainEqual(step({ step: 'truncate', outcome: 'nothing_fits' }));
    expect(result.steps).toContainEqual(step({ step: 'shorten', outcome: 'ok' }));
    expect(result.action).toBe('truncated');
    const messages = messagesOf(result) ?? [];
    // The head whole, the turn before the newest truncated, the newest turn with its result shortened.
    expect(messages.slice(0, 2)).toEqual(history.slice(0, 2));
    expect(contentText(messages[2]?.content ?? '')).toMatch(/^\[truncated #\d+: 2 earlier messages removed/);
    expect(messages[3]).toBe(history[4]);
    const shortened = contentText(messages[4]?.content ?? '');
    expect(shortened.length).toBeLessThan(big.length);
    expect(shortened.startsWith(big.slice(0, 200))).toBe(true);
    expect(shortened.endsWith(big.slice(-60))).toBe(true);
    expect(shortened).toMatch(
      /\[… \d+ lines \(about [\d,]+ tokens\) of this output cut to fit the context window; ask for a narrower range to see it\]/,
    );
    expect(messages.at(-1)).toBe(history.at(-1));
    // Each placeholder stands for what it took out: the truncated turn, and the whole result.
    expect(recallOf(result)).toEqual([
      expect.objectContaining({ kind: 'truncation', messages: history.slice(2, 4) }),
      expect.objectContaining({
        kind: 'truncated',
        label: expect.stringContaining('src/big.ts'),
        messages: [history[5]],
      }),
    ]);
    fits(manager, requestOf(result));
    expectNothingLost(history, result);
  });

  it('names recall in the shortened result where the caller offers it', async () => {
    const history = specSession([]);
    const { result } = await recoverAt5k(history, { recall: true });
    expect(result.action).toBe('truncated');
    const [, span] = recallOf(result) ?? [];
    expect(contentText(messagesOf(result)?.at(-1)?.content ?? '')).toContain(
      `; recall #${span?.id} brings it back]`,
    );
    expect(messagesOf(result)?.[1]).toBe(history[1]);
  });

  it('judges its cuts by the prompt count the provider stated, so a task the estimate alone puts over stays whole', async () => {
    const window = 5_000;
    const probe = new ContextWindowManager({ counter: charCounter, contextLength: window, model: MODEL });
    const budget = probe.measure(request([], { maxTokens: 512 })).budget;
    // A task that leaves the newest turn about 60 tokens by the estimate: not even an empty result fits.
    const task = 'the service must do this and that '.repeat(Math.floor(((budget - 60) * 4) / 34));
    const history: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: task },
      ...toolTurn(
        'c1',
        'read_file',
        'src/big.ts',
        sourceOutput(60, 'big'),
        'Reading the file the task names now.',
      ),
    ];
    const sent = request(history, { maxTokens: 512 });
    const recover = (input?: number) => {
      const manager = new ContextWindowManager({ counter: charCounter, contextLength: window, model: MODEL });
      // A run under way: the provider's reports have narrowed the estimate's bounds.
      for (let send = 0; send < 3; send++) {
        const opening = manager.fit(request(history.slice(0, 2), { maxTokens: 512 }));
        manager.observe({ promptTokens: opening.estimate });
      }
      const estimate = manager.measure(sent).estimate;
      const overflow: OverflowInfo = {
        kind: 'context',
        window,
        ...(input === undefined ? {} : { input: Math.round(estimate * input) }),
        pattern: 'test',
      };
      return recoverFromOverflow({ request: sent, history, overflow, manager });
    };
    // The provider counted the request at 88% of the estimate, over the window with the reply: by
    // that figure the task and a shortened result fit.
    const stated = await recover(0.88);
    expect(stated.steps).toContainEqual(step({ step: 'shorten', outcome: 'ok' }));
    expect(stated.action).toBe('truncated');
    expect(messagesOf(stated)?.[1]).toBe(history[1]);
    // By a stated figure, the window less the reply's reserve is the bound, not the budget: the
    // safety share is for an estimate's error. At 94% the candidate is over the one, not the other.
    const nearLimit = await recover(0.94);
    expect(nearLimit.steps).toContainEqual(step({ step: 'shorten', outcome: 'ok' }));
    expect(messagesOf(nearLimit)?.[1]).toBe(history[1]);
    // Without the figure, the estimate is all there is: the fallback's digest cuts the task.
    const unstated = await recover();
    expect(unstated.steps).toContainEqual(step({ step: 'shorten', outcome: 'nothing_fits' }));
    expect(unstated.action).toBe('fallback');
    expect(contentText(messagesOf(unstated)?.[1]?.content ?? '').length).toBeLessThan(task.length);
  });

  it('falls back to a digest and the newest pairing-safe unit when the newest turn has no tool result to shorten', async () => {
    const history = specSession([
      { role: 'assistant', content: `My notes on it: ${'a long aside about the file '.repeat(500)}` },
      { role: 'user', content: 'Forget that file; just summarize the spec.' },
    ]);
    const { result, manager } = await recoverAt5k(history);
    expect(result.steps).toContainEqual(step({ step: 'truncate', outcome: 'nothing_fits' }));
    expect(result.steps).toContainEqual(step({ step: 'shorten', outcome: 'nothing_fits' }));
    expect(result.action).toBe('fallback');
    const digest = contentText(messagesOf(result)?.[1]?.content ?? '');
    expect(digest).toMatch(/^\[compacted #\d+: 6 earlier messages condensed without a model/);
    expect(digest).toContain('[tool read_file(src/big.ts) ran, result elided]');
    expect(messagesOf(result)?.at(-1)).toBe(history.at(-1));
    fits(manager, requestOf(result));
    expectNothingLost(history, result);
  });

  it('gives up with context_truncated, compacting nothing, when tool schemas alone fill the window', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
    const tools = Array.from({ length: 40 }, (_, index) => ({
      name: `tool_${index}`,
      description: 'A tool with a long description. '.repeat(20),
      parameters: { type: 'object', properties: { value: { type: 'string', description: 'x'.repeat(200) } } },
    }));
    const history = codingSession({ turns: 6, lines: 10 });
    const summarize = recordingSummarizer();
    const result = await recoverFromOverflow({
      request: request(history, { tools }),
      overflow: context(8_192),
      manager,
      summarize,
    });
    expect(result.action).toBe('give_up');
    if (result.action !== 'give_up') return;
    expect(result.reason).toBe('floor_does_not_fit');
    expect(result.message).toMatch(
      /tool schemas alone take about \d+ \(caller \d+k? \(40 tools\)\): send fewer tools or shorter schemas/,
    );
    expect(ContextTruncatedError.isInstance(result.error)).toBe(true);
    expect(result.error?.code).toBe('context_truncated');
    expect(summarize.requests).toHaveLength(0);
    expect(removedOf(result)).toEqual([]);
    expect(messagesOf(result)).toBeUndefined();
  });

  it('gives up naming the newest message when it alone is larger than the window', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
    const history = [
      ...codingSession({ turns: 3, lines: 10 }),
      { role: 'user' as const, content: 'log line '.repeat(20_000) },
    ];
    const summarize = recordingSummarizer();
    const result = await recoverFromOverflow({
      request: request(history),
      overflow: context(21_000),
      manager,
      summarize,
    });
    expect(result.action).toBe('give_up');
    if (result.action !== 'give_up') return;
    expect(result.message).toMatch(/the newest user message \("log line/);
    expect(summarize.requests).toHaveLength(0);
  });

  it('takes the whole history from `history` when the request passed is the fitted one', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
    const history = codingSession({ turns: 16, lines: 40 });
    const fitted = manager.fit(request(history)).request;
    const result = await recoverFromOverflow({
      request: fitted,
      history,
      overflow: context(12_000),
      manager,
      summarize: recordingSummarizer(),
    });
    expect(result.action).toBe('compacted');
    expectNothingLost(history, result);
  });

  it('raises the calibration when the provider counted more prompt tokens than Spillway estimated', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
    const history = codingSession({ turns: 16, lines: 40 });
    const estimate = manager.measure(request(history)).estimate;
    const overflow: OverflowInfo = { kind: 'context', window: 30_000, input: 2 * estimate, pattern: 'test' };
    const result = await recoverFromOverflow({
      request: request(history),
      overflow,
      manager,
      summarize: recordingSummarizer(),
    });
    expect(scalarFactor(manager.state.calibration)).toBeGreaterThan(1.9);
    expect(result.steps).toContainEqual(step({ step: 'calibrate', reported: 2 * estimate }));
    expect(result.action).toBe('compacted');
    fits(manager, requestOf(result));
  });

  it('refuses what is not an overflow', async () => {
    const manager = new ContextWindowManager({ counter: charCounter, contextLength: 8_000 });
    const result = await recoverFromOverflow({
      request: request(codingSession({ turns: 1 })),
      overflow: { kind: 'none', pattern: 'no-match' },
      manager,
    });
    expect(result).toMatchObject({ action: 'give_up', reason: 'not_overflow' });
  });
});

describe('an output_cap rejection that states the model length', () => {
  it('learns it as the window and asks for at most the room the prompt leaves', async () => {
    const { ContextWindowManager, classifyOverflow } = await import('../index.js');
    const manager = new ContextWindowManager({ contextLength: 32_768, model: 'qwen' });
    const overflow = classifyOverflow({
      status: 400,
      body: '{"object":"error","message":"max_tokens=20000 cannot be greater than max_model_len=16384. Please request fewer output tokens.","type":"BadRequestError","param":null,"code":400}',
    });
    expect(overflow.kind).toBe('output_cap');
    const request = {
      format: 'openai' as const,
      model: 'qwen',
      messages: [{ role: 'user' as const, content: 'hello' }],
      tools: [],
      maxTokens: 20_000,
      extra: {},
    };
    const { recoverFromOverflow } = await import('./recover-from-overflow.js');
    const result = await recoverFromOverflow({ request, overflow, manager });
    expect(result.action).toBe('lower_max_tokens');
    expect(result.steps).toContainEqual({ step: 'learn_window_from_cap', window: 16_384 });
    expect(manager.windowFor('qwen')).toBe(16_384);
    expect(requestOf(result)?.maxTokens).toBeLessThan(16_384);
    expect((requestOf(result)?.maxTokens ?? 0) + 20).toBeLessThanOrEqual(16_384);
  });
});

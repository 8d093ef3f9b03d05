import { describe, expect, it } from 'vitest';
import { ContextTruncatedError, type SpillwayError } from '../errors/index.js';
import { createEstimator, scalarFactor } from '../tokens/index.js';
import { type ChatRequest, contentText, type Message } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';
import type { ManagerEvent } from './events.js';

function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { format: 'openai', model: 'gpt-4o', messages, tools: [], extra: {}, ...extra };
}

const head: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the failing test.' },
];

function turn(index: number, size: number): Message[] {
  const id = `call_${index}`;
  return [
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id, name: 'read_file', arguments: `{"path":"src/file${index}.ts"}` }],
    },
    { role: 'tool', toolCallId: id, content: `export const value${index} = 1;\n`.repeat(size) },
  ];
}

/** The estimator counted as if exact: every decision is made on a count, none left to the provider. */
const exact = createEstimator();

describe('ContextWindowManager', () => {
  it('drops the oldest whole turns when a count says the request does not fit, and reports the cut', () => {
    const events: ManagerEvent[] = [];
    const manager = new ContextWindowManager({
      contextLength: 4_000,
      compress: false,
      exact,
      onEvent: (event) => events.push(event),
    });
    const messages = [...head, ...turn(1, 200), ...turn(2, 200), ...turn(3, 10)];
    const result = manager.fit(request(messages));
    expect(result.pruned).toBe(true);
    expect(result.droppedTurns).toBeGreaterThanOrEqual(1);
    expect(result.request.messages.slice(0, 2)).toEqual(head);
    expect(result.request.messages.at(-1)).toBe(messages.at(-1));
    expect(result.estimate).toBeLessThanOrEqual(result.budget);
    expect(result.cut).toMatchObject({ kind: 'drop', elided: 0 });
    expect(events.map((event) => event.type)).toEqual(['cut', 'fit']);
  });

  it('sends a request only the estimate says is over, as it came, for the provider to judge', () => {
    const manager = new ContextWindowManager({ contextLength: 4_000 });
    const messages = [...head, ...turn(1, 150), ...turn(2, 150), ...turn(3, 10)];
    const result = manager.fit(request(messages));
    expect(result.estimate).toBeGreaterThan(result.budget);
    expect(result.verdict).toBe('uncertain');
    expect(result.countSource).toBe('estimate');
    expect(result.request.messages).toBe(messages);
  });

  it('elides the oldest tool results before dropping turns: the longest prefix stays cached', () => {
    const manager = new ContextWindowManager({ contextLength: 7_000, exact });
    const messages = [...head, ...turn(1, 200), ...turn(2, 200), ...turn(3, 200), ...turn(4, 10)];
    const result = manager.fit(request(messages));
    expect(result.cut.kind).toBe('elide');
    expect(result.request.messages).toHaveLength(messages.length);
    expect(contentText(result.request.messages[3]?.content ?? '')).toMatch(
      /^\[elided #\d+: read src\/file1\.ts, [\d,]+ tokens; read it again to see it\]$/,
    );
    expect(result.request.messages.at(-1)).toBe(messages.at(-1));
  });

  it('shortens an oversized newest tool result instead of refusing, keeping its start and end', () => {
    const manager = new ContextWindowManager({ contextLength: 4_000, exact });
    const messages = [...head, ...turn(1, 2_000)];
    const result = manager.fit(request(messages));
    expect(result.cut).toMatchObject({ kind: 'shorten', shortened: 1 });
    expect(result.estimate).toBeLessThanOrEqual(result.budget);
    const text = contentText(result.request.messages.at(-1)?.content ?? '');
    expect(text.startsWith('export const value1 = 1;')).toBe(true);
    expect(text).toMatch(
      /\[… [\d,]+ lines \(about [\d,]+ tokens\) of this output cut to fit the context window; ask for a narrower range to see it\]/,
    );
    expect(text).not.toMatch(/recall/);
    // The same bytes on the next send: the shortening is kept.
    const again = manager.fit(request([...messages, { role: 'user', content: 'Go on.' }]));
    expect(contentText(again.request.messages[3]?.content ?? '')).toBe(text);
  });

  it('leaves a transcript that fits untouched and fills in max_tokens from the room left', () => {
    const manager = new ContextWindowManager({ contextLength: 32_000, outputCap: 8_000 });
    const input = request([...head, ...turn(1, 5)]);
    const result = manager.fit(input);
    expect(result.pruned).toBe(false);
    expect(result.request.messages).toBe(input.messages);
    expect(result.request.maxTokens).toBe(8_000);
  });

  it('keeps a caller’s max_tokens the window has room for, and lowers one it has not', () => {
    const small = request([...head, ...turn(1, 20)], { maxTokens: 2_000 });
    expect(new ContextWindowManager({ contextLength: 32_000 }).fit(small).request.maxTokens).toBe(2_000);
    const big = request([...head, ...turn(1, 20)], { maxTokens: 30_000 });
    expect(
      new ContextWindowManager({ contextLength: 32_000, clamp: 'never' }).fit(big).request.maxTokens,
    ).toBe(30_000);
    const result = new ContextWindowManager({ contextLength: 32_000, reserve: 4_000 }).fit(
      request([...head, ...turn(1, 300)], { maxTokens: 31_000 }),
    );
    expect(result.request.maxTokens).toBeLessThan(31_000);
    expect(result.request.maxTokens).toBe(32_000 - result.estimate - 512);
  });

  it('throws ContextTruncatedError with the figures when a count says even the head and the newest user text cannot fit', () => {
    const manager = new ContextWindowManager({ contextLength: 2_000, exact });
    try {
      manager.fit(
        request([...head, ...turn(1, 2), { role: 'user', content: 'please read this. '.repeat(800) }]),
      );
      expect.unreachable();
    } catch (error) {
      expect(ContextTruncatedError.isInstance(error)).toBe(true);
      const details = (error as ContextTruncatedError).details;
      expect(details.window).toBe(2_000);
      expect(details.estimate).toBeGreaterThan(details.budget);
      expect((error as SpillwayError).retryable).toBe(false);
      expect((error as Error).message).toMatch(/the head and the newest turn/);
    }
  });

  it('after one usage report, estimates the same request at no less than the reported count', () => {
    const manager = new ContextWindowManager({ contextLength: 100_000 });
    const input = request([...head, ...turn(1, 50)]);
    const first = manager.fit(input);
    const reported = first.breakdown.total * 2;
    manager.observe({ promptTokens: reported });
    const fresh = request(input.messages.map((message) => ({ ...message })));
    expect(manager.fit(fresh).estimate).toBeGreaterThanOrEqual(reported);
    expect(scalarFactor(manager.state.calibration)).toBeCloseTo(2 * 1.1, 5);
  });

  it('brings an estimate that errs high down toward the reported count, staying above it', () => {
    const manager = new ContextWindowManager({ contextLength: 100_000 });
    const input = request([...head, ...turn(1, 50)]);
    const { breakdown } = manager.fit(input);
    const reported = Math.ceil(breakdown.total * 0.6);
    manager.observe({ promptTokens: reported });
    // Another request of the same kind, not an extension of the counted one: calibrated, not anchored.
    const other = manager.fit(request([...head, ...turn(2, 50)]));
    expect(other.anchored).toBe(false);
    // The reported ratio (0.6, the rounding up of the report included) and the first report's margin.
    expect(other.estimate).toBeGreaterThanOrEqual(Math.ceil(other.breakdown.total * 0.6 * 1.1));
    expect(other.estimate).toBeLessThanOrEqual(Math.ceil(other.breakdown.total * 0.6 * 1.1) + 1);
    expect(other.estimate).toBeLessThan(other.breakdown.total);
  });

  it('anchors the next estimate on the reported count plus the appended messages', () => {
    const manager = new ContextWindowManager({ contextLength: 100_000 });
    const messages = [...head, ...turn(1, 50)];
    manager.fit(request(messages));
    manager.observe({ promptTokens: 700 });
    const appended = turn(2, 1);
    const next = manager.fit(request([...messages, ...appended]));
    expect(next.anchored).toBe(true);
    const alone = new ContextWindowManager({ contextLength: 100_000 }).fit(request([...head, ...appended]));
    expect(next.estimate).toBeLessThan(700 + alone.breakdown.total);
    expect(next.estimate).toBeGreaterThan(700);
  });

  it('resets calibration when a new run starts with a different head', () => {
    const manager = new ContextWindowManager({ contextLength: 100_000 });
    const { breakdown } = manager.fit(request([...head, ...turn(1, 10)]));
    manager.observe({ promptTokens: breakdown.total * 3 });
    expect(scalarFactor(manager.state.calibration)).toBeGreaterThan(2);
    manager.fit(request([{ role: 'user', content: 'A different task.' }]));
    expect(scalarFactor(manager.state.calibration)).toBe(1);
  });

  it('uses a window learned from an overflow error for that model', () => {
    const manager = new ContextWindowManager({ contextLength: 9_600 });
    manager.learnWindow('gpt-4o', 21_000);
    expect(manager.fit(request(head)).window).toBe(21_000);
    manager.learnWindow('gpt-4o', 12);
    expect(manager.windowFor('gpt-4o')).toBe(21_000);
  });

  it('rejects broken pairing before fitting and invalid options at construction', () => {
    const manager = new ContextWindowManager({ contextLength: 8_000 });
    expect(() => manager.fit(request([...head, { role: 'tool', toolCallId: 'x', content: 'r' }]))).toThrow(
      /answers no earlier tool call/,
    );
    expect(() => new ContextWindowManager({ contextLength: -5 })).toThrow(
      /contextLength must be a positive integer/,
    );
    expect(() => new ContextWindowManager({ safetyRatio: 2 })).toThrow(/safetyRatio/);
    expect(() => new ContextWindowManager({ contextLength: 4_000, reserve: 4_000 })).toThrow(
      /reserve \(4000\) must be less than contextLength \(4000\)/,
    );
  });

  it('refuses with context_truncated, not a crash, when the reserve leaves the prompt no room', () => {
    const history: Message[] = [...head];
    for (let index = 1; index <= 20; index++) history.push(...turn(index, 40));
    // A window learned later can fall below the reserve fixed at construction.
    const manager = new ContextWindowManager({ contextLength: 8_000, reserve: 3_990 });
    manager.learnWindow('gpt-4o', 4_000);
    let error: unknown;
    try {
      manager.fit(request(history));
    } catch (caught) {
      error = caught;
    }
    expect(ContextTruncatedError.isInstance(error)).toBe(true);
    expect((error as SpillwayError).message).toMatch(
      /the 4000-token window leaves no room for the prompt after reserving 3990 for the reply and 120 for estimation error/,
    );
  });
});

describe('the sticky prune cut', () => {
  it('keeps the same turns out behind the same marker until the budget moves it, so requests extend each other', () => {
    const manager = new ContextWindowManager({
      contextLength: 6_000,
      outputCap: 1_000,
      compress: false,
      exact,
    });
    const history: Message[] = [...head];
    let previous: string[] | undefined;
    let extended = 0;
    let prunedSends = 0;
    for (let index = 1; index <= 60; index++) {
      history.push(...turn(index, 12));
      const fitted = manager
        .fit(request([...history]))
        .request.messages.map((message) => JSON.stringify(message));
      if (fitted.length < history.length) prunedSends++;
      if (previous?.every((message, position) => fitted[position] === message)) extended++;
      previous = fitted;
    }
    expect(prunedSends).toBeGreaterThan(30);
    // Most sends repeat the previous request byte for byte and append to it; the cut moves seldom:
    // deep enough each time for five more turns.
    expect(extended).toBeGreaterThanOrEqual(48);
  });

  it('starts over when the history no longer holds the cut', () => {
    const manager = new ContextWindowManager({
      contextLength: 6_000,
      outputCap: 1_000,
      compress: false,
      exact,
    });
    const history: Message[] = [...head];
    for (let index = 1; index <= 30; index++) history.push(...turn(index, 12));
    expect(manager.fit(request(history)).pruned).toBe(true);
    const compacted: Message[] = [
      ...head,
      { role: 'user', content: '[compacted #1: summary]' },
      ...history.slice(-4),
    ];
    const result = manager.fit(request(compacted));
    expect(result.pruned).toBe(false);
    expect(result.request.messages).toEqual(compacted);
  });
});

describe('fit: the cut report', () => {
  it('counts as elided only the elided results the request still holds, and calls a cut that holds none a drop', () => {
    const stubs = (messages: readonly Message[]) =>
      messages.filter((message) => /^\[elided #/.test(contentText(message.content))).length;
    const kinds = new Set<string>();
    for (let lines = 60; lines <= 200; lines += 2) {
      const manager = new ContextWindowManager({
        contextLength: 4_000,
        outputCap: 1_000,
        cutRunway: 10,
        exact,
      });
      const messages = [...head, ...turn(1, 150), ...turn(2, 150), ...turn(3, 150), ...turn(4, lines)];
      const result = manager.fit(request(messages));
      kinds.add(result.cut.kind);
      expect(result.cut.elided, `newest result of ${lines} lines`).toBe(stubs(result.request.messages));
      expect(result.cut.kind.includes('elide'), `newest result of ${lines} lines`).toBe(
        result.cut.elided > 0,
      );
    }
    // The sizes cover cuts that elide, and elisions whose drop then left every elided result out.
    expect(kinds).toContain('elide');
    expect(kinds).toContain('drop');
  });
});

describe('fit: a compaction summary after the head', () => {
  it('stays in every request while later cuts move past the first, and each cut holds until the next', () => {
    const manager = new ContextWindowManager({
      contextLength: 6_000,
      outputCap: 1_000,
      compress: false,
      exact,
    });
    const summary: Message = {
      role: 'user',
      content: '[compacted #1: 12 earlier messages summarized]\n\nRead the parser; the test fails on YAML.',
    };
    const history: Message[] = [...head, summary];
    let previous: string[] | undefined;
    let extended = 0;
    let cuts = 0;
    for (let index = 1; index <= 60; index++) {
      history.push(...turn(index, 12));
      const fitted = manager.fit(request([...history]));
      expect(fitted.request.messages.slice(0, 3)).toEqual([...head, summary]);
      const sent = fitted.request.messages.map((message) => JSON.stringify(message));
      if (previous?.every((message, position) => sent[position] === message)) extended++;
      else if (previous) cuts++;
      previous = sent;
    }
    expect(cuts).toBeGreaterThanOrEqual(2);
    expect(extended).toBeGreaterThanOrEqual(48);
  });
});

/**
 * A conversation with a cut in force: three reads, the provider counting each request at three
 * quarters of the estimate; then a fourth read of `size` lines.
 */
function fitWithNewestRead(size: number) {
  const manager = new ContextWindowManager({ contextLength: 4_000 });
  let messages = [...head, ...turn(1, 200), ...turn(2, 200)];
  for (const next of [turn(3, 200), turn(4, size)]) {
    const fitted = manager.fit(request(messages));
    manager.observe({ promptTokens: Math.round(0.75 * fitted.estimate) });
    messages = [...messages, ...next];
  }
  return { result: manager.fit(request(messages)), newest: messages.at(-1) as Message };
}

describe('the newest turn, when only the estimate says the deepest cut is over', () => {
  it('goes out whole for a count or the provider to judge: nothing of it is cut on an estimate alone', () => {
    const { result, newest } = fitWithNewestRead(400);
    expect(result.estimate).toBeGreaterThan(result.budget);
    expect(result.verdict).toBe('uncertain');
    expect(result.cut).toMatchObject({ kind: 'drop', shortened: 0 });
    expect(result.request.messages.at(-1)).toBe(newest);
  });

  it('is shortened when even the least it can count is over the budget', () => {
    const { result, newest } = fitWithNewestRead(900);
    expect(result.verdict).toBe('fits');
    expect(result.cut.shortened).toBe(1);
    expect(result.request.messages.at(-1)).not.toBe(newest);
    expect(result.estimate).toBeLessThanOrEqual(result.budget);
  });
});

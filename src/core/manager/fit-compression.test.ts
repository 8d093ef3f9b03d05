import { describe, expect, it } from 'vitest';
import {
  charCounter,
  codingSession,
  recordingSummarizer,
  sourceOutput,
  toolTurn,
} from '../../../test/support/compaction-fixtures.js';
import { recall } from '../compact/index.js';
import { scalarFactor } from '../tokens/index.js';
import { type ChatRequest, contentText, type Message } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';
import type { ManagerEvent } from './events.js';

function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { format: 'openai', model: 'gpt-4o', messages, tools: [], extra: {}, ...extra };
}

const toolTexts = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === 'tool').map((message) => contentText(message.content));

describe('ContextWindowManager.fit: sticky tool-result elision', () => {
  it('elides old results when the request does not fit, before dropping turns, keeps the newest run full, and reports it', () => {
    const events: ManagerEvent[] = [];
    const manager = new ContextWindowManager({
      contextLength: 16_000,
      exact: charCounter,
      recall: true,
      onEvent: (event) => events.push(event),
    });
    const messages = codingSession({ turns: 16, lines: 60 });
    const result = manager.fit(request(messages));
    expect(result.compressed).toBeGreaterThan(0);
    expect(result.pruned).toBe(false);
    expect(result.estimate).toBeLessThanOrEqual(result.budget);
    expect(events.map((event) => event.type)).toEqual(['cut', 'fit']);
    const newest = messages.findLast((message) => message.role === 'tool');
    expect(result.request.messages).toContain(newest);
    const spans = result.recall;
    expect(spans.length).toBe(result.compressed);
    const first = spans[0];
    expect(first && contentText(result.request.messages[3]?.content ?? '')).toContain(`#${first?.id}`);
    const back = recall({ id: first?.id ?? '' }, spans);
    expect(back.ok && back.text).toContain(sourceOutput(60, 'fn0_').split('\n')[59]);
  });

  it('renders a compressed result to the same bytes on every later request, and after restore', () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      exact: charCounter,
      contextLength: 16_000,
    });
    const messages = codingSession({ turns: 16, lines: 60 });
    const first = manager.fit(request(messages));
    const levels = { ...manager.state.compression?.entries };
    expect(Object.keys(levels).length).toBeGreaterThan(0);
    const grown = [...messages, ...toolTurn('late', 'read_file', 'src/late.ts', sourceOutput(80, 'late'))];
    const second = manager.fit(request(grown));
    const textOf = (fitted: readonly Message[], id: string) =>
      contentText(fitted.find((m) => m.role === 'tool' && m.toolCallId === id)?.content ?? '');
    for (const [id, entry] of Object.entries(levels)) {
      const now = manager.state.compression?.entries[id];
      expect(now).toBeDefined();
      if (now?.level !== entry.level) continue;
      expect(textOf(second.request.messages, id)).toBe(entry.text);
      expect(textOf(first.request.messages, id)).toBe(entry.text);
    }
    const resumed = new ContextWindowManager({
      counter: charCounter,
      exact: charCounter,
      contextLength: 16_000,
    });
    resumed.restore(JSON.parse(JSON.stringify(manager.state)));
    expect(toolTexts(resumed.fit(request(grown)).request.messages)).toEqual(
      toolTexts(manager.fit(request(grown)).request.messages),
    );
  });

  it('can be switched off', () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      exact: charCounter,
      contextLength: 8_000,
      compress: false,
    });
    const result = manager.fit(request(codingSession({ turns: 8, lines: 60 })));
    expect(result.compressed).toBe(0);
    expect(result.pruned).toBe(true);
  });
});

describe('ContextWindowManager.fit, step 6: pruning leaves a recallable marker', () => {
  it('puts one marker after the head and recalls the dropped turns from it', () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      exact: charCounter,
      contextLength: 6_000,
      compress: false,
    });
    const messages = codingSession({ turns: 10, lines: 40 });
    const result = manager.fit(request(messages));
    expect(result.pruned).toBe(true);
    const marker = result.request.messages[2];
    expect(marker?.role).toBe('user');
    expect(contentText(marker?.content ?? '')).toMatch(
      /^\[pruned #(\d+): \d+ earlier messages \(\d+ turns\) left out/,
    );
    const span = result.recall.find((item) => item.kind === 'pruned');
    expect(span?.messages).toEqual(messages.slice(2, 2 + (span?.messages.length ?? 0)));
    expect(recall({ id: span?.id ?? '' }, result.recall).ok).toBe(true);
    // The same prune renders the same marker object.
    expect(manager.fit(request(messages)).request.messages[2]).toBe(marker);
  });
});

describe('ContextWindowManager.fit: the prune marker names what went out of sight', () => {
  it('lists names seen only in the dropped turns, none of the kept ones, and still fits', () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      exact: charCounter,
      contextLength: 6_000,
      compress: false,
    });
    const messages = codingSession({ turns: 10, lines: 40 });
    const result = manager.fit(request(messages));
    expect(result.pruned).toBe(true);
    expect(result.estimate).toBeLessThanOrEqual(result.budget);
    const marker = contentText(result.request.messages[2]?.content ?? '');
    const listed = /Names seen only there: ([^;\]]*)/.exec(marker)?.[1]?.split(', ') ?? [];
    expect(listed).toContain('fn0_1');
    // What the turns read is named once, in the list before the names.
    expect(marker).toContain('They read src/module0/file0.ts');
    expect(listed).not.toContain('src/module0/file0.ts');
    const kept = result.request.messages.slice(3).map((message) => contentText(message.content));
    for (const name of listed) for (const text of kept) expect(text).not.toContain(name);
  });
});

describe('ContextWindowManager.fit keeps compaction summaries when it prunes', () => {
  it('drops the oldest real turns and keeps the summary after the head, the marker after it', () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      exact: charCounter,
      contextLength: 6_000,
      compress: false,
    });
    const session = codingSession({ turns: 10, lines: 40 });
    const summary: Message = {
      role: 'user',
      content: '[compacted #1: 20 earlier messages summarized; recall #1]\n\nGoal: fix it.',
    };
    const messages = [...session.slice(0, 2), summary, ...session.slice(2)];
    const result = manager.fit(request(messages));
    expect(result.pruned).toBe(true);
    expect(result.request.messages[2]).toBe(summary);
    expect(contentText(result.request.messages[3]?.content ?? '')).toMatch(/^\[pruned #/);
    const span = result.recall.find((item) => item.kind === 'pruned');
    expect(span?.messages[0]).toBe(session[2]);
  });
});

describe('ContextWindowManager anchors and limits', () => {
  it('keeps anchoring on the last counted request after a send that failed', () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      exact: charCounter,
      contextLength: 100_000,
    });
    const messages = codingSession({ turns: 2, lines: 5 });
    manager.fit(request(messages));
    manager.observe({ promptTokens: 500 });
    const next = [...messages, { role: 'user' as const, content: 'paste '.repeat(100) }];
    expect(manager.fit(request(next)).anchored).toBe(true);
    // No usage came back (the provider rejected it): the refit is still anchored.
    expect(manager.fit(request(next)).anchored).toBe(true);
  });

  it('lowers the output cap it clamps to after learning one, and never raises it', () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      contextLength: 100_000,
      outputCap: 16_000,
    });
    manager.learnOutputCap('gpt-4o', 4_096);
    manager.learnOutputCap('gpt-4o', 8_000);
    expect(manager.outputCapFor('gpt-4o')).toBe(4_096);
    expect(manager.fit(request(codingSession({ turns: 1, lines: 2 }))).request.maxTokens).toBe(4_096);
    expect(manager.state.learnedOutputCaps).toEqual({ 'gpt-4o': 4_096 });
  });
});

describe('ContextWindowManager.compact', () => {
  it('compacts with the manager’s window and estimate, takes a recall id, and keeps the run going', async () => {
    const manager = new ContextWindowManager({
      counter: charCounter,
      contextLength: 32_000,
      model: 'gpt-4o',
    });
    const messages = codingSession({ turns: 10, lines: 20 });
    manager.fit(request(messages));
    manager.observe({ promptTokens: 20_000 });
    const factor = scalarFactor(manager.state.calibration);
    const summarize = recordingSummarizer();
    const result = await manager.compact({ messages, summarize, keepTurns: 2 });
    expect(result.ok).toBe(true);
    expect(summarize.requests[0]?.model).toBe('gpt-4o');
    expect(summarize.requests[0]?.maxTokens).toBe(16_000);
    expect(result.recall?.[0]?.id).toBe(
      String(manager.state.compression?.nextRecallId ? manager.state.compression.nextRecallId - 1 : 0),
    );
    manager.fit(request(result.messages ?? []));
    expect(scalarFactor(manager.state.calibration)).toBe(factor);
  });
});

describe('ContextWindowManager.fit: a cut planned on the count that judges it', () => {
  it('fills the budget as the trusted counter counts, not as the higher estimate does', () => {
    // The estimator counts 60% more than the provider; the caller's counter counts as the provider does.
    const estimator = { name: 'test/over', count: (text: string) => Math.ceil((text.length / 4) * 1.6) };
    const manager = new ContextWindowManager({
      counter: estimator,
      exact: charCounter,
      contextLength: 8_000,
      cutRunway: 0,
      compress: false,
    });
    const messages = codingSession({ turns: 40, lines: 60 });
    const fitted = manager.fit(request(messages));
    expect(fitted.cut.kind).toBe('drop');
    expect(fitted.countSource).toBe('exact');
    // The turn before the oldest one kept would not have fitted as well: no room for it was left empty.
    const firstKept = fitted.request.messages.findIndex(
      (message, index) => index > 2 && message.role === 'assistant',
    );
    const original = messages.indexOf(fitted.request.messages[firstKept] as Message);
    const turnBefore = messages.slice(original - 2, original);
    const turnTokens = turnBefore.reduce(
      (sum, message) => sum + charCounter.count(contentText(message.content)),
      0,
    );
    expect(fitted.estimate + turnTokens).toBeGreaterThan(fitted.budget);
  });
});

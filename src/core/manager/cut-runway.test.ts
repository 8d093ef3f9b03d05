import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';

const WINDOW = 8_192;

/** A tool loop's history after `turns` reads, each result about 200 tokens. */
function history(turns: number): Message[] {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Summarize every file of the project.' },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_${turn}`;
    messages.push(
      { role: 'assistant', content: '', toolCalls: [{ id, name: 'read', arguments: `{"path":"f${turn}"}` }] },
      { role: 'tool', toolCallId: id, content: `file ${turn}: ${'lorem ipsum dolor sit amet '.repeat(40)}` },
    );
  }
  return messages;
}

/** The provider's count in this test: a token per four characters of the messages. */
const reportedTokens = (messages: readonly Message[]) => Math.ceil(JSON.stringify(messages).length / 4);

/**
 * Fits a growing history 80 times, the provider reporting its count of each; the share of the window
 * each send takes (prompt and `max_tokens`) and the cuts made.
 */
function run(cutRunway: number | undefined): { uses: number[]; cuts: number } {
  const manager = new ContextWindowManager({
    contextLength: WINDOW,
    model: 'gpt-4o',
    compress: false,
    ...(cutRunway === undefined ? {} : { cutRunway }),
  });
  const uses: number[] = [];
  let cuts = 0;
  for (let turns = 1; turns <= 80; turns++) {
    const request: ChatRequest = {
      format: 'openai',
      model: 'gpt-4o',
      messages: history(turns),
      tools: [],
      maxTokens: 1_024,
      extra: {},
    };
    const result = manager.fit(request);
    if (result.cut.kind !== 'none' && result.cut.kind !== 'sticky') cuts++;
    const reported = reportedTokens(result.request.messages);
    uses.push((reported + (result.request.maxTokens ?? 0)) / WINDOW);
    manager.observe({ promptTokens: reported });
  }
  return { uses, cuts };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

describe('the cut runway', () => {
  it('trades cuts for history: a shorter runway cuts more often and sends more of the history', () => {
    const shallow = run(0);
    const usual = run(undefined);
    const deep = run(12);
    expect(shallow.cuts).toBeGreaterThan(usual.cuts);
    expect(usual.cuts).toBeGreaterThan(deep.cuts);
    expect(mean(shallow.uses)).toBeGreaterThan(mean(usual.uses));
    expect(mean(usual.uses)).toBeGreaterThan(mean(deep.uses));
    for (const use of [...shallow.uses, ...usual.uses, ...deep.uses]) expect(use).toBeLessThanOrEqual(1);
  });

  it('rejects a runway that is not a number of turns, saying what it takes', () => {
    for (const cutRunway of [-1, Number.NaN, 101]) {
      expect(() => new ContextWindowManager({ cutRunway })).toThrow(SpillwayError);
      expect(() => new ContextWindowManager({ cutRunway })).toThrow(/cutRunway must be a number of turns/);
    }
  });
});

/**
 * The order of trust in counts: the provider's anchored count, then a counter trusted to count as
 * the provider does, then the estimate. A tokenizer guessed from the model id is trusted only once
 * its counts agree with the provider's reports.
 */
import { describe, expect, it } from 'vitest';
import { charCounter, sourceOutput, toolTurn } from '../../../test/support/compaction-fixtures.js';
import { EstimateCache, type TokenCounter } from '../tokens/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';

const MODEL = 'qwen';
const WINDOW = 8_192;

/** A tokenizer that counts a third more than the server does (a Qwen vocabulary against o200k). */
const wrongTokenizer: TokenCounter = {
  name: 'guess/qwen',
  count: (text) => Math.ceil((text.length / 4) * 1.33),
};
/** A tokenizer that counts as its server does: a fifth less than Spillway's counter. */
const rightTokenizer: TokenCounter = {
  name: 'guess/o200k',
  count: (text) => Math.ceil((text.length / 4) * 0.8),
};

const head: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the failing test in src/parser.ts.' },
];

function request(messages: Message[]): ChatRequest {
  return { format: 'openai', model: MODEL, messages, tools: [], extra: {}, maxTokens: 16_384 };
}

function turn(index: number, lines: number): Message[] {
  return toolTurn(`call_${index}`, 'read_file', `src/file${index}.ts`, sourceOutput(lines, `f${index}_`));
}

/** What a server that counts with `server` reports for a request. */
function serverCount(server: TokenCounter, messages: Message[]): number {
  return new EstimateCache(server).request(request(messages)).total;
}

/** A manager whose first send a server counting with `server` reported. */
function afterOneReport(tokenizer: TokenCounter, server: TokenCounter = charCounter) {
  const manager = new ContextWindowManager({
    contextLength: WINDOW,
    counter: charCounter,
    tokenizer,
    model: MODEL,
  });
  const first = [...head, ...turn(0, 30)];
  manager.fit(request(first));
  const notice = manager.observe({ promptTokens: serverCount(server, first) });
  return { manager, first, notice };
}

describe('a tokenizer guessed from the model id', () => {
  it('is demoted when its count disagrees with the provider, with a notice, and never used again', () => {
    const { notice, manager } = afterOneReport(wrongTokenizer);
    expect(notice).toMatchObject({ code: 'tokenizer_demoted', tokenizer: 'guess/qwen' });
    expect(manager.state.calibration.tokenizer?.status).toBe('demoted');
  });

  it('never overrides the anchored count: a request the server counts as fitting goes out whole', () => {
    for (let lines = 20; lines <= 400; lines += 20) {
      const { manager, first } = afterOneReport(wrongTokenizer);
      const next = [...first, ...turn(1, lines)];
      const result = manager.fit(request(next));
      expect(result.countSource, `${lines} lines`).toBe('anchored');
      if (serverCount(charCounter, next) + 1_024 + 256 <= WINDOW) {
        expect(result.request.messages, `${lines} lines`).toEqual(next);
        expect(result.cut.kind, `${lines} lines`).toBe('none');
      }
    }
  });

  it('counts a request the estimate alone cannot place once it agreed with the provider', () => {
    // A new run (another task) starts its calibration afresh but keeps what the reports showed of
    // the tokenizer; its one tool result puts the estimate just over the budget.
    const task = [head[0] as Message, { role: 'user', content: 'Another task.' } as Message, ...turn(1, 430)];
    const unverified = afterOneReport(wrongTokenizer).manager.fit(request(task));
    expect(unverified.verdict).toBe('uncertain');
    expect(unverified.countSource).toBe('estimate');
    expect(unverified.request.messages).toEqual(task);

    const { manager } = afterOneReport(rightTokenizer, rightTokenizer);
    const second = [...head, ...turn(0, 30), ...turn(2, 10)];
    manager.fit(request(second));
    manager.observe({ promptTokens: serverCount(rightTokenizer, second) });
    expect(
      manager.state.calibration.tokenizer,
      JSON.stringify(manager.state.calibration.tokenizer),
    ).toMatchObject({ status: 'verified' });
    const counted = manager.fit(request(task));
    expect(counted.countSource).toBe('exact');
    expect(counted.verdict).toBe('fits');
    expect(counted.request.messages).toEqual(task);
  });
});

describe('a verified tokenizer', () => {
  it('is checked against every later report, and demoted when one disagrees', () => {
    const { manager } = afterOneReport(rightTokenizer, rightTokenizer);
    const second = [...head, ...turn(0, 30), ...turn(2, 10)];
    manager.fit(request(second));
    manager.observe({ promptTokens: serverCount(rightTokenizer, second) });
    expect(manager.state.calibration.tokenizer?.status).toBe('verified');
    // The conversation grows into what the server renders differently: a tenth more than counted.
    const third = [...second, ...turn(3, 200)];
    manager.fit(request(third));
    const notice = manager.observe({ promptTokens: Math.round(serverCount(rightTokenizer, third) * 1.1) });
    expect(notice).toMatchObject({ code: 'tokenizer_demoted', tokenizer: 'guess/o200k' });
    expect(manager.state.calibration.tokenizer?.status).toBe('demoted');
  });
});

describe('a counter the caller trusts', () => {
  it('outranks the calibration: a request the estimate says is surely over, and it counts as fitting, goes out', () => {
    // The estimator counts three times what the provider does, more than its assumed worst case.
    const overCounter: TokenCounter = {
      name: 'test/three-times',
      count: (text) => charCounter.count(text) * 3,
    };
    const manager = new ContextWindowManager({
      contextLength: WINDOW,
      counter: overCounter,
      exact: charCounter,
    });
    const paste = 'the log line that the user pasted in full, with its numbers 12345. '.repeat(370);
    const messages: Message[] = [...head, { role: 'user', content: paste }];
    const result = manager.fit(request(messages));
    expect(result.countSource).toBe('exact');
    expect(result.cut.kind).toBe('none');
    expect(result.request.messages).toEqual(messages);
  });
});

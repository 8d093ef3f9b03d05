import { describe, expect, it } from 'vitest';
import {
  charCounter,
  codingSession,
  recordingSummarizer,
} from '../../../test/support/compaction-fixtures.js';
import { ContextTruncatedError } from '../errors/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import { ConversationDriver, type ConversationDriverOptions } from './conversation-driver.js';
import type { SpillwayEvent } from './driver-events.js';
import type { Transport, TransportResult } from './transport.js';

const MODEL = 'test-model';

function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { format: 'openai', model: MODEL, messages, tools: [], extra: {}, ...extra };
}

/** A transport that answers from a script, one result per attempt, and records what it was sent. */
function scripted(
  results: Array<TransportResult<string> | ((request: ChatRequest) => TransportResult<string>)>,
) {
  const sent: ChatRequest[] = [];
  const transport: Transport<string> = {
    async send(request) {
      sent.push(request);
      const next = results.shift();
      if (next === undefined) throw new Error('the script ran out');
      return typeof next === 'function' ? next(request) : next;
    },
  };
  return { transport, sent };
}

const answer = (response = 'ok', fields: Partial<Extract<TransportResult<string>, { ok: true }>> = {}) =>
  ({ ok: true, response, ...fields }) as const;

const vllmRejection = (message: string): TransportResult<string> => ({
  ok: false,
  failure: 'rejected',
  error: new Error(message),
  status: 400,
  body: JSON.stringify({ error: { message, type: 'BadRequestError', param: 'input_tokens', code: 400 } }),
});

function driverWith(options: ConversationDriverOptions = {}) {
  const events: SpillwayEvent[] = [];
  const driver = new ConversationDriver({
    counter: charCounter,
    contextLength: 64_000,
    model: MODEL,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { driver, events };
}

describe('ConversationDriver.send', () => {
  it('sends a request that fits as it came, and feeds the reported usage back', async () => {
    const { driver, events } = driverWith();
    const history = codingSession({ turns: 2, lines: 5 });
    const { transport, sent } = scripted([answer('hi', { usage: { promptTokens: 900 } })]);
    const result = await driver.send({ request: request(history, { maxTokens: 1_000 }), transport });
    expect(result.ok).toBe(true);
    expect(sent[0]?.messages).toBe(history);
    expect(sent[0]?.maxTokens).toBe(1_000);
    expect(events).toContainEqual({ type: 'usage', promptTokens: 900 });
  });

  it('retries an interrupted stream, then answers', async () => {
    const { driver, events } = driverWith();
    const broken = { ok: false, failure: 'stream_interrupted', error: new Error('terminated') } as const;
    const { transport, sent } = scripted([broken, broken, answer()]);
    const result = await driver.send({ request: request(codingSession({ turns: 1 })), transport });
    expect(result).toMatchObject({ ok: true, attempts: 3 });
    expect(sent).toHaveLength(3);
    expect(
      events
        .filter((event) => event.type === 'retry')
        .map((event) => event.type === 'retry' && event.attempt),
    ).toEqual([1, 2]);
  });

  it('retries tool-call arguments that are not JSON once, and gives up on the second', async () => {
    const { driver } = driverWith();
    const bad = answer('x', { toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path": ' }] });
    const { transport } = scripted([bad, bad]);
    const result = await driver.send({ request: request(codingSession({ turns: 1 })), transport });
    expect(result).toMatchObject({ ok: false, reason: 'invalid_tool_arguments' });
    expect(!result.ok && result.message).toMatch(/2 times in a row/);
  });

  it('makes room for a reply the window cut off: the history compacted and a note on the retry only', async () => {
    const { driver, events } = driverWith({ contextLength: 40_000, adoptsHistory: true });
    const history = codingSession({ turns: 14, lines: 40 });
    const cutOff = answer('partial', {
      finishReason: 'length',
      usage: { promptTokens: 30_000, completionTokens: 8_500 },
    });
    const { transport, sent } = scripted([cutOff, answer('whole')]);
    const summarize = recordingSummarizer();
    const result = await driver.send({ request: request(history), transport, summarize });
    expect(result.ok && result.response).toBe('whole');
    expect(summarize.requests.length).toBeGreaterThan(0);
    expect(result.changes).toHaveLength(1);
    expect(result.changes[0]?.kind).toBe('exhaustion');
    expect(result.history?.length).toBeLessThan(history.length);
    const note = sent[1]?.messages.at(-1);
    expect(note?.role).toBe('user');
    expect(String(note?.content)).toMatch(/cut off because the context window ran out/);
    expect(result.history).not.toContain(note);
    expect(events).toContainEqual({ type: 'compaction-start', reason: 'exhaustion' });
  });

  it('asks for less reasoning when reasoning filled a reply the window cut off and the prompt is small', async () => {
    const { driver } = driverWith({ contextLength: 40_000 });
    const cutOff = answer('partial', {
      finishReason: 'length',
      usage: { promptTokens: 2_000, completionTokens: 37_000 },
      reasoningTokens: 30_000,
    });
    const { transport, sent } = scripted([cutOff, answer()]);
    const result = await driver.send({ request: request(codingSession({ turns: 1 })), transport });
    expect(result.ok).toBe(true);
    expect(sent[1]?.extra).toEqual({ reasoning_effort: 'low' });
  });

  it('recovers an overflow once with what the provider stated, and ends a second one as context_truncated', async () => {
    const { driver, events } = driverWith({ contextLength: 32_768 });
    const history = codingSession({ turns: 2, lines: 5 });
    const rejection = vllmRejection(
      "This model's maximum context length is 16384 tokens. However, you requested 20000 output tokens and your prompt contains 1000 input tokens, for a total of 21000 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=1000)",
    );
    const { transport, sent } = scripted([rejection, rejection]);
    const result = await driver.send({ request: request(history, { maxTokens: 20_000 }), transport });
    expect(sent[1]?.maxTokens).toBe(16_384 - 1_000 - 512);
    expect(result).toMatchObject({
      ok: false,
      reason: 'context_truncated',
      recovery: { action: 'lower_max_tokens' },
    });
    expect(events.filter((event) => event.type === 'overflow')).toHaveLength(2);
    expect(events.filter((event) => event.type === 'recovery')).toHaveLength(1);
    expect(driver.manager.windowFor(MODEL)).toBe(16_384);
  });

  it('does not retry a rejection that is no overflow', async () => {
    const { driver } = driverWith();
    const { transport, sent } = scripted([
      {
        ok: false,
        failure: 'rejected',
        error: new Error('rate limited'),
        status: 429,
        body: '{"error":{"message":"Rate limit reached"}}',
      },
    ]);
    const result = await driver.send({ request: request(codingSession({ turns: 1 })), transport });
    expect(result).toMatchObject({ ok: false, reason: 'provider_error' });
    expect(sent).toHaveLength(1);
  });

  it('stops before sending once the signal is aborted', async () => {
    const { driver } = driverWith();
    const controller = new AbortController();
    controller.abort();
    const { transport, sent } = scripted([answer()]);
    const result = await driver.send({
      request: request(codingSession({ turns: 1 })),
      transport,
      signal: controller.signal,
    });
    expect(result).toMatchObject({ ok: false, reason: 'aborted' });
    expect(sent).toHaveLength(0);
  });

  it('ends with the ContextTruncatedError, sending nothing, when nothing can fit', async () => {
    const { driver } = driverWith({ contextLength: 2_000 });
    const history: Message[] = [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'word '.repeat(20_000) },
    ];
    const { transport, sent } = scripted([answer()]);
    const result = await driver.send({ request: request(history), transport });
    expect(result.ok).toBe(false);
    expect(!result.ok && ContextTruncatedError.isInstance(result.error)).toBe(true);
    expect(sent).toHaveLength(0);
  });

  it('in passthrough, sends what it is given and reports an overflow as a provider error', async () => {
    const { driver } = driverWith({ contextLength: 2_000, passthrough: true });
    const history = codingSession({ turns: 4 });
    const rejection = vllmRejection(
      "This model's maximum context length is 2000 tokens. However, your request has 9000 input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=9000)",
    );
    const { transport, sent } = scripted([rejection]);
    const result = await driver.send({ request: request(history, { maxTokens: 30_000 }), transport });
    expect(sent[0]?.messages).toBe(history);
    expect(sent[0]?.maxTokens).toBe(30_000);
    expect(result).toMatchObject({ ok: false, reason: 'provider_error', overflow: { kind: 'context' } });
  });

  it('remembers a compaction for a caller that resends its whole history, and applies it to the next send', async () => {
    const { driver } = driverWith({ contextLength: 64_000 });
    const history = codingSession({ turns: 16, lines: 40 });
    const rejection = vllmRejection(
      "This model's maximum context length is 12000 tokens. However, your request has 20000 input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=20000)",
    );
    const { transport, sent } = scripted([rejection, answer(), answer()]);
    const summarize = recordingSummarizer();
    const first = await driver.send({ request: request(history), transport, summarize });
    expect(first.ok && first.recovery?.action).toBe('compacted');
    const summaries = summarize.requests.length;
    const retried = sent[1]?.messages ?? [];
    // The caller keeps its own history and sends it again, one turn longer.
    const next = [
      ...history,
      { role: 'assistant' as const, content: 'Done.' },
      { role: 'user' as const, content: 'Thanks.' },
    ];
    const second = await driver.send({ request: request(next), transport, summarize });
    expect(second.ok).toBe(true);
    const resent = sent[2]?.messages ?? [];
    expect(resent.slice(0, 3)).toEqual(retried.slice(0, 3));
    expect(resent.at(-1)).toEqual({ role: 'user', content: 'Thanks.' });
    // Nothing was summarized again: the remembered summary stands in for the same messages.
    expect(summarize.requests).toHaveLength(summaries);
  });

  it('classifies with the caller’s own overflow rows', async () => {
    const { driver } = driverWith({
      overflowPatterns: [{ name: 'acme', kind: 'context', pattern: /acme says (?<window>\d+) is the most/ }],
    });
    const { transport } = scripted([
      {
        ok: false,
        failure: 'rejected',
        error: new Error('x'),
        status: 500,
        body: 'acme says 12000 is the most',
      },
      answer(),
    ]);
    const result = await driver.send({
      request: request(codingSession({ turns: 16, lines: 40 })),
      transport,
    });
    expect(result.ok).toBe(true);
    expect(driver.manager.windowFor(MODEL)).toBe(12_000);
  });

  it('carries its state to a new driver: calibration, learned window, anchor and remembered prefix', async () => {
    const { driver } = driverWith();
    const history = codingSession({ turns: 2, lines: 5 });
    const { transport } = scripted([answer('ok', { usage: { promptTokens: 700 } })]);
    await driver.send({ request: request(history), transport });
    driver.manager.learnWindow(MODEL, 30_000);
    const copy = driverWith().driver;
    copy.restore(JSON.parse(JSON.stringify(driver.state)));
    expect(copy.state).toEqual(driver.state);
    const next = [
      ...history,
      { role: 'assistant' as const, content: 'Sure.' },
      { role: 'user' as const, content: 'Go on.' },
    ];
    expect(copy.fit(request(next)).anchored).toBe(true);
  });

  it('settles a request only the estimate calls too large with the caller’s count before sending', async () => {
    const history = codingSession({ turns: 16, lines: 60 });
    const probe = driverWith({ contextLength: 12_000 }).driver.fit(request(history));
    expect(probe.verdict).toBe('uncertain');
    // The count says it fits: it goes out as it came.
    const fits = driverWith({ contextLength: 12_000, measure: async () => probe.budget - 100 });
    const sentWhole = scripted([answer()]);
    await fits.driver.send({ request: request(history), transport: sentWhole.transport });
    expect(sentWhole.sent[0]?.messages).toBe(history);
    expect(fits.events).toContainEqual({
      type: 'count',
      promptTokens: probe.budget - 100,
      estimate: probe.estimate,
      budget: probe.budget,
    });
    // The count says it does not: it is cut before anything is sent.
    const over = driverWith({ contextLength: 12_000, measure: async () => probe.estimate });
    const sentCut = scripted([answer()]);
    const result = await over.driver.send({ request: request(history), transport: sentCut.transport });
    expect(sentCut.sent).toHaveLength(1);
    expect(result.ok && result.fit.cut.kind).not.toBe('none');
    expect(result.ok && result.fit.verdict).toBe('fits');
  });
});

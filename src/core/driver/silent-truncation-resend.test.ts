import { describe, expect, it } from 'vitest';
import { charCounter, codingSession } from '../../../test/support/compaction-fixtures.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import { ConversationDriver } from './conversation-driver.js';
import type { SpillwayEvent } from './driver-events.js';
import type { Transport } from './transport.js';

const MODEL = 'llama3.1:8b';
/** The window the server enforces (Ollama's num_ctx), smaller than the one the driver was told. */
const SERVER_WINDOW = 4_096;

function request(messages: Message[]): ChatRequest {
  return { format: 'openai', model: MODEL, messages, tools: [], extra: {} };
}

/**
 * A server that keeps at most its window of the prompt and answers 200, reporting what it kept (as
 * Ollama does beyond num_ctx): here the fitted estimate stands in for the real count.
 */
function truncatingServer() {
  const sent: ChatRequest[] = [];
  const transport: Transport<string> = {
    async send(sentRequest, { fit }) {
      sent.push(sentRequest);
      return { ok: true, response: 'ok', usage: { promptTokens: Math.min(SERVER_WINDOW, fit.estimate) } };
    },
  };
  return { transport, sent };
}

/** The server's own count of a request, as a counting endpoint would answer (the test's counter). */
function countRequest(sent: ChatRequest): Promise<number> {
  const text = sent.messages.map((message) => JSON.stringify(message.content)).join('');
  return Promise.resolve(charCounter.count(text));
}

function driverWith(retry?: { silentTruncation: number }) {
  const events: SpillwayEvent[] = [];
  const driver = new ConversationDriver({
    counter: charCounter,
    contextLength: 32_768,
    model: MODEL,
    // Only a count makes a truncation of the first send more than a suspicion.
    measure: countRequest,
    onEvent: (event) => events.push(event),
    ...(retry ? { retry } : {}),
  });
  return { driver, events };
}

describe('a silently truncated prompt', () => {
  it('is only suspected on the first send when nothing can count it: the window is kept', async () => {
    const events: SpillwayEvent[] = [];
    const driver = new ConversationDriver({
      counter: charCounter,
      contextLength: 32_768,
      model: MODEL,
      onEvent: (event) => events.push(event),
    });
    const { transport, sent } = truncatingServer();
    const result = await driver.send({
      request: request(codingSession({ turns: 30, lines: 40 })),
      transport,
    });
    expect(result).toMatchObject({ ok: true, attempts: 1 });
    expect(sent).toHaveLength(1);
    expect(driver.manager.windowFor(MODEL)).toBe(32_768);
    const notice = events.find((event) => event.type === 'notice');
    expect(notice?.type === 'notice' && notice.notice.code).toBe('suspected_truncation');
  });

  it('learns the window from the reported count and resends the turn fitted to it, once', async () => {
    const { driver, events } = driverWith();
    const history = codingSession({ turns: 30, lines: 40 });
    const { transport, sent } = truncatingServer();
    const result = await driver.send({ request: request(history), transport });
    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(sent).toHaveLength(2);
    expect(sent[0]?.messages).toBe(history);
    expect(sent[1]?.messages.length).toBeLessThan(history.length);
    expect(sent[1]?.messages.at(-1)).toBe(history.at(-1));
    expect(result.ok && result.fit.window).toBe(SERVER_WINDOW);
    expect(result.ok && result.fit.estimate).toBeLessThanOrEqual(SERVER_WINDOW);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'retry', reason: 'silent_truncation', attempt: 1 }),
    );
    // The estimate suspected it; the server's count confirmed it.
    const notices = events.flatMap((event) => (event.type === 'notice' ? [event.notice] : []));
    expect(notices.map((notice) => notice.code)).toEqual(['suspected_truncation', 'silent_truncation']);
    expect(notices[1]).toMatchObject({
      code: 'silent_truncation',
      reported: SERVER_WINDOW,
      window: SERVER_WINDOW,
    });
  });

  it('returns the reply as it came when the caller already has it, and fits the next send to the learned window', async () => {
    const { driver, events } = driverWith({ silentTruncation: 0 });
    const history = codingSession({ turns: 30, lines: 40 });
    const { transport, sent } = truncatingServer();
    const first = await driver.send({ request: request(history), transport });
    expect(first).toMatchObject({ ok: true, attempts: 1 });
    expect(events.some((event) => event.type === 'retry')).toBe(false);
    const next = [...history, { role: 'user', content: 'Go on.' } satisfies Message];
    const second = await driver.send({ request: request(next), transport });
    expect(second.ok && second.fit.window).toBe(SERVER_WINDOW);
    expect(sent[1]?.messages.length).toBeLessThan(next.length);
  });
});

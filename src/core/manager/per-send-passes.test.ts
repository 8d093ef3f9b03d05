import { describe, expect, it } from 'vitest';
import { readFileHistory as history } from '../../../test/support/read-file-history.js';
import { type Message, requireMessages, validatePairing } from '../transcript/index.js';
import { ContextWindowManager } from './context-window-manager.js';

/** Messages whose field reads are counted, to tell how many passes over the history a call makes. */
function counted(messages: Message[]): { messages: Message[]; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const wrapped = messages.map(
    (message) =>
      new Proxy(message, {
        get(target, key, receiver) {
          if (typeof key === 'string') reads.set(key, (reads.get(key) ?? 0) + 1);
          return Reflect.get(target, key, receiver);
        },
      }),
  );
  return { messages: wrapped, reads };
}

describe('the passes a send makes over the history', () => {
  it('checks a message object once: one found well-formed is not inspected again', () => {
    const { messages, reads } = counted(history(20));
    requireMessages(messages, 'test');
    const first = reads.get('content') ?? 0;
    expect(first).toBeGreaterThan(0);
    requireMessages(messages, 'test');
    expect(reads.get('content') ?? 0).toBe(first);
  });

  it('re-checks pairing only when the fit changed the messages: a request that fits is checked once', () => {
    const { messages, reads } = counted(history(20));
    const manager = new ContextWindowManager({ contextLength: 128_000 });
    const request = { format: 'openai' as const, model: 'gpt-4o', messages, tools: [], extra: {} };
    manager.fit(request);
    reads.clear();
    const result = manager.fit(request);
    expect(result.request.messages).toBe(messages);
    const inFit = reads.get('toolCallId') ?? 0;
    reads.clear();
    validatePairing(messages);
    expect(inFit).toBe(reads.get('toolCallId') ?? 0);
  });
});

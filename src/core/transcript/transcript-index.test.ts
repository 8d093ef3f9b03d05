import { describe, expect, it } from 'vitest';
import { readFileHistory as history } from '../../../test/support/read-file-history.js';
import { indexToolCalls } from '../compress/index.js';
import { SpillwayError } from '../errors/index.js';
import { requireMessages } from './require-input.js';
import { derivedFrom, withListsUnchanged } from './transcript-index.js';
import type { Message } from './types.js';
import { validatePairing } from './validate-pairing.js';

/** Messages that note when they are read, to tell which messages a call looks at. */
function watched(messages: Message[]): { messages: Message[]; read: Set<number> } {
  const read = new Set<number>();
  const wrapped = messages.map(
    (message, index) =>
      new Proxy(message, {
        get(target, key, receiver) {
          read.add(index);
          return Reflect.get(target, key, receiver);
        },
      }),
  );
  return { messages: wrapped, read };
}

describe('the transcript walk of a growing history', () => {
  it('checks pairing again only over the messages appended since the last check', () => {
    const { messages, read } = watched(history(40));
    expect(validatePairing(messages.slice(0, -2)).ok).toBe(true);
    read.clear();
    expect(validatePairing(messages).ok).toBe(true);
    expect([...read]).toEqual([messages.length - 2, messages.length - 1]);
  });

  it('finds an issue in the appended messages of a history checked before', () => {
    const messages = history(40);
    expect(validatePairing(messages).ok).toBe(true);
    const orphan: Message = { role: 'tool', toolCallId: 'call_x', content: 'stray' };
    const outcome = validatePairing([...messages, orphan]);
    expect(outcome.issues).toEqual([
      expect.objectContaining({ kind: 'orphan_result', messageIndex: messages.length, toolCallId: 'call_x' }),
    ]);
  });

  it('rejects a malformed message appended to a history checked before, naming its index', () => {
    const messages = history(40);
    requireMessages(messages, 'test');
    const wire = { role: 'assistant', content: null, tool_calls: [] } as unknown as Message;
    let thrown: unknown;
    try {
      requireMessages([...messages, wire], 'fit');
    } catch (error) {
      thrown = error;
    }
    expect(SpillwayError.isInstance(thrown) && thrown.code).toBe('invalid_transcript');
    expect((thrown as Error).message).toContain(`message ${messages.length} has "tool_calls"`);
  });

  it('walks a short history once for all a send asks of it, and again once another was walked', () => {
    const { messages, read } = watched(history(6));
    expect(validatePairing(messages).ok).toBe(true);
    read.clear();
    requireMessages(messages, 'test');
    expect(indexToolCalls(messages).get('call_5')?.index).toBe(messages.length - 2);
    expect([...read]).toEqual([]);
    const other = history(4);
    expect(validatePairing(other).ok).toBe(true);
    read.clear();
    expect(validatePairing(messages).ok).toBe(true);
    expect(read.size).toBe(messages.length);
  });

  it('compares a list with its walk once within one fit, and each list anew after it', () => {
    const messages = history(40);
    validatePairing(messages);
    let reads = 0;
    // A list that counts how often its entries are read (the comparison with a walk reads them all).
    const counted = (list: Message[]) =>
      new Proxy(list, {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key, receiver);
        },
      });
    const list = counted(messages.slice());
    const orphan: Message = { role: 'tool', toolCallId: 'call_x', content: 'stray' };
    withListsUnchanged(() => {
      expect(validatePairing(list).ok).toBe(true);
      const once = reads;
      expect(once).toBeGreaterThanOrEqual(messages.length);
      requireMessages(list, 'test');
      expect(indexToolCalls(list).get('call_39')?.index).toBe(messages.length - 2);
      expect(reads).toBe(once);
      // A list that grew meanwhile is compared again, and what it gained is walked.
      list.push(orphan);
      expect(validatePairing(list).issues.map((issue) => issue.kind)).toEqual(['orphan_result']);
    });
    // Outside a fit a list may change in place between two asks: it is compared every time.
    list[list.length - 1] = messages[1] as Message;
    expect(validatePairing(list).issues.map((issue) => issue.kind)).not.toContain('orphan_result');
  });

  it('indexes the calls of a history once, and the appended calls alone after that', () => {
    const { messages, read } = watched(history(40));
    indexToolCalls(messages.slice(0, -2));
    read.clear();
    expect(indexToolCalls(messages).get('call_39')?.index).toBe(messages.length - 2);
    expect([...read]).toEqual([messages.length - 2, messages.length - 1]);
  });
});

describe('values derived from a growing history', () => {
  /** How many messages each call to `extend` started from. */
  function counting(messages: Message[], starts: number[]): number | undefined {
    return derivedFrom<number>(messages, 'test', 'count', (previous) => {
      starts.push(previous?.length ?? 0);
      return (previous?.value ?? 0) + messages.length - (previous?.length ?? 0);
    });
  }

  it('are extended from what was derived of the same first messages, and made afresh for others', () => {
    const messages = history(40);
    const starts: number[] = [];
    expect(counting(messages.slice(0, -2), starts)).toBe(messages.length - 2);
    expect(counting(messages, starts)).toBe(messages.length);
    // The same content in new objects is another history: nothing is carried over.
    expect(counting(structuredClone(messages), starts)).toBe(messages.length);
    expect(starts).toEqual([0, messages.length - 2, 0]);
  });
});

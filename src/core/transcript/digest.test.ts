import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentHash, digestItems, digestMessages } from './digest.js';
import type { Message } from './types.js';

const messageArbitrary: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant('user' as const), content: fc.string({ maxLength: 200 }) }),
  fc.record({
    role: fc.constant('tool' as const),
    toolCallId: fc.string({ maxLength: 8 }),
    content: fc.string({ unit: 'grapheme', maxLength: 300 }),
  }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: fc.constant(''),
    toolCalls: fc.array(
      fc.record({ id: fc.string({ maxLength: 6 }), name: fc.string({ maxLength: 6 }), arguments: fc.json() }),
      { maxLength: 2 },
    ),
  }),
);

describe('digestMessages', () => {
  it('is the same for equal messages in other objects, and differs when any field does', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { minLength: 1, maxLength: 8 }), fc.nat(), (messages, at) => {
        const copies = messages.map((message) => JSON.parse(JSON.stringify(message)) as Message);
        expect(digestMessages(copies)).toBe(digestMessages(messages));
        const index = at % messages.length;
        const changed = copies.map((message, position) =>
          position === index
            ? ({ ...message, content: `${JSON.stringify(message.content)}!` } as Message)
            : message,
        );
        expect(digestMessages(changed)).not.toBe(digestMessages(messages));
      }),
    );
  });

  it('tells apart lists that hold the same messages split differently, or in another order', () => {
    const a: Message = { role: 'user', content: 'ab' };
    const b: Message = { role: 'user', content: 'c' };
    expect(digestMessages([a, b])).not.toBe(digestMessages([b, a]));
    expect(
      digestMessages([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'bc' },
      ]),
    ).not.toBe(digestMessages([a, b]));
    expect(digestMessages([a])).not.toBe(digestMessages([a, a]));
  });

  it('is the given hash of the items as JSON lines when a hash is given', () => {
    const messages: Message[] = [{ role: 'user', content: 'hi' }];
    expect(digestItems(messages, (text) => `h(${text})`)).toBe('h({"role":"user","content":"hi"})');
  });
});

describe('contentHash', () => {
  it('differs for texts of odd length that differ in their last character', () => {
    expect(contentHash(['abc'])).not.toBe(contentHash(['abd']));
    expect(contentHash(['a'])).not.toBe(contentHash(['b']));
    expect(contentHash(['a', ''])).not.toBe(contentHash(['', 'a']));
  });
});

describe("digestItems with a caller's hash", () => {
  it('hashes the same message objects once, and any other list by its content', () => {
    const texts: string[] = [];
    const hash = (text: string) => {
      texts.push(text);
      return `h${text.length}:${text}`;
    };
    const system: Message = { role: 'system', content: 'You are a coding agent.' };
    const task: Message = { role: 'user', content: 'Fix the bug.' };
    const first = digestItems([system, task], hash);
    expect(digestItems([system, task], hash)).toBe(first);
    expect(texts).toHaveLength(1);
    // The same content in new objects is hashed again, to the same; another list to another.
    expect(digestItems([{ ...system }, { ...task }], hash)).toBe(first);
    expect(digestItems([task], hash)).not.toBe(first);
    expect(digestItems([{ role: 'system', content: 'Review.' }, task], hash)).not.toBe(first);
    expect(texts).toHaveLength(4);
    expect(texts[0]).toBe(`${JSON.stringify(system)}\n${JSON.stringify(task)}`);
  });
});

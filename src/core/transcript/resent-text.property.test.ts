import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readJsonText } from './json-text-memo.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';

/** A system prompt long enough for the body to be remembered. */
const SYSTEM = { role: 'system', content: `You are a coding agent. ${'Follow the rules. '.repeat(300)}` };
const text = fc.string({ unit: fc.constantFrom('a', 'b', '"', '\\', '{', ']', 'é', ' '), maxLength: 12 });
const message = fc.oneof(
  text.map((content) => ({ role: 'user', content })),
  text.map((content) => ({ role: 'assistant', content })),
  fc.tuple(fc.nat(3), text).map(([call, content]) => ({
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: `call_${call}`,
        type: 'function',
        function: { name: 'read', arguments: `{"q":${JSON.stringify(content)}}` },
      },
    ],
  })),
);
const edit = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    messages: fc.array(message, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), message }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('same' as const) }),
  fc.record({ kind: fc.constant('parsed' as const) }),
  fc.record({ kind: fc.constant('invalid' as const), at: fc.nat() }),
);

describe('a conversation resent as text or bytes', () => {
  it('converts, edit after edit, as its parsed value does, and is written back as it came', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 4 }),
        fc.array(edit, { minLength: 1, maxLength: 10 }),
        // The body as a server has it: its text, or its bytes (a Buffer, or plain bytes).
        fc.constantFrom('text', 'buffer', 'plain'),
        (start, edits, form) => {
          let messages: unknown[] = [SYSTEM, ...start];
          for (const step of edits) {
            if (step.kind === 'append') messages = [...messages, ...step.messages];
            if (step.kind === 'replace' && messages.length > 1) {
              messages = messages.slice();
              messages[1 + (step.at % (messages.length - 1))] = step.message;
            }
            if (step.kind === 'remove' && messages.length > 1) {
              messages = messages.slice();
              messages.splice(1 + (step.at % (messages.length - 1)), 1);
            }
            const body = { model: 'gpt-4o', messages, max_tokens: 100 };
            const wire = JSON.stringify(body);
            // Now and then the same body comes as a parsed value, in between.
            if (step.kind === 'parsed') fromOpenAIChat(JSON.parse(wire));
            const bytes = Buffer.from(wire);
            const sent = form === 'text' ? wire : form === 'buffer' ? bytes : new Uint8Array(bytes);
            const request = fromOpenAIChat(sent);
            expect(request).toStrictEqual(fromOpenAIChat(JSON.parse(wire)));
            expect(JSON.parse(JSON.stringify(toOpenAIChat(fromOpenAIChat(sent))))).toStrictEqual(body);
            if (step.kind === 'invalid') {
              // A body with a message that is not one is refused, again when sent again, and what
              // was read before stays right.
              const broken = messages.slice();
              broken.splice(1 + (step.at % messages.length), 0, { role: 'narrator', content: 'x' });
              const refused = JSON.stringify({ model: 'gpt-4o', messages: broken });
              expect(() => fromOpenAIChat(refused)).toThrow(/unknown role/);
              expect(() => fromOpenAIChat(refused)).toThrow(/unknown role/);
              expect(fromOpenAIChat(wire)).toStrictEqual(fromOpenAIChat(JSON.parse(wire)));
            }
            // A caller that changes the array of a body it read itself hands in what it changed.
            const read = readJsonText(wire);
            if (read.kind === 'value') {
              const value = read.value as { messages: unknown[] };
              fromOpenAIChat(value);
              value.messages.reverse();
              expect(fromOpenAIChat(value).messages).toStrictEqual(
                fromOpenAIChat(JSON.parse(wire)).messages.reverse(),
              );
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexToolCalls } from '../compress/index.js';
import { headRange, type Segmentation, splitTurns } from './split-turns.js';
import type { Message } from './types.js';
import { validatePairing } from './validate-pairing.js';

/** The pairing check as one full pass, written plainly: what the incremental walk must agree with. */
function referencePairing(
  messages: readonly Message[],
): Array<{ kind: string; messageIndex: number; toolCallId: string }> {
  // Turns as the head rule says: -1 up to the first assistant message after the first user message,
  // then each assistant message opens the next turn.
  const firstUser = messages.findIndex((message) => message.role === 'user');
  let turn = -1;
  const turnOf = messages.map((message, index) => {
    if (firstUser !== -1 && index > firstUser && message.role === 'assistant') turn += 1;
    return turn;
  });
  const newest = turnOf.at(-1) ?? -1;
  const declared = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) if (!declared.has(call.id)) declared.set(call.id, index);
  });
  const calls = new Map<string, { at: number; turn: number; answered: boolean }>();
  const issues: Array<{ kind: string; messageIndex: number; toolCallId: string }> = [];
  for (const [index, message] of messages.entries()) {
    const turn = turnOf[index] ?? -1;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        if (call.id === '') issues.push({ kind: 'empty_id', messageIndex: index, toolCallId: '' });
        else if (calls.has(call.id))
          issues.push({ kind: 'duplicate_call_id', messageIndex: index, toolCallId: call.id });
        else calls.set(call.id, { at: index, turn, answered: false });
      }
      continue;
    }
    if (message.role !== 'tool') continue;
    const id = message.toolCallId;
    const call = calls.get(id);
    if (id === '') issues.push({ kind: 'empty_id', messageIndex: index, toolCallId: '' });
    else if (!call) {
      const later = declared.get(id);
      const kind = later !== undefined && later > index ? 'result_before_call' : 'orphan_result';
      issues.push({ kind, messageIndex: index, toolCallId: id });
    } else if (call.answered) issues.push({ kind: 'duplicate_result', messageIndex: index, toolCallId: id });
    else {
      call.answered = true;
      if (call.turn !== turn)
        issues.push({ kind: 'result_in_later_turn', messageIndex: index, toolCallId: id });
    }
  }
  for (const [id, call] of calls)
    if (!call.answered && call.turn !== newest)
      issues.push({ kind: 'missing_result', messageIndex: call.at, toolCallId: id });
  return issues.sort((a, b) => a.messageIndex - b.messageIndex);
}

/** The head and turns as the rule says them, in one plain pass. */
function referenceTurns(messages: readonly Message[]): Segmentation {
  const firstUser = messages.findIndex((message) => message.role === 'user');
  const opens = (index: number) =>
    firstUser !== -1 && index > firstUser && messages[index]?.role === 'assistant';
  let headEnd = messages.length;
  for (let index = 0; index < messages.length; index++)
    if (opens(index)) {
      headEnd = index;
      break;
    }
  const turns: Segmentation['turns'] = [];
  for (let index = headEnd; index < messages.length; index++) {
    const last = turns.at(-1);
    if (last === undefined || opens(index)) turns.push({ start: index, end: index + 1 });
    else last.end = index + 1;
  }
  return { head: { start: 0, end: headEnd }, turns };
}

const ids = fc.constantFrom('a', 'b', 'c', 'd', '');
const messageArbitrary: fc.Arbitrary<Message> = fc.oneof(
  fc.constant<Message>({ role: 'system', content: 'rules' }),
  fc.constant<Message>({ role: 'user', content: 'next' }),
  fc.constant<Message>({ role: 'assistant', content: 'thinking' }),
  fc.array(ids, { minLength: 1, maxLength: 3 }).map(
    (list): Message => ({
      role: 'assistant',
      content: '',
      toolCalls: list.map((id) => ({ id, name: 'read_file', arguments: '{}' })),
    }),
  ),
  ids.map((id): Message => ({ role: 'tool', toolCallId: id, content: 'output' })),
);

const shape = (messages: readonly Message[]) =>
  validatePairing(messages).issues.map(({ kind, messageIndex, toolCallId }) => ({
    kind,
    messageIndex,
    toolCallId,
  }));

describe('the transcript walk', () => {
  it('finds the pairing issues a full pass finds, for every prefix of a growing history', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 60 }), (messages) => {
        // Fresh objects, so no walk of an earlier run of the property is reused by accident.
        const history = messages.map((message) => ({ ...message }) as Message);
        for (let length = 0; length <= history.length; length++) {
          const prefix = history.slice(0, length);
          expect(shape(prefix)).toEqual(referencePairing(prefix));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('agrees with a full pass when a history is cut, edited or continued differently', () => {
    fc.assert(
      fc.property(
        fc.array(messageArbitrary, { minLength: 40, maxLength: 80 }),
        fc.array(messageArbitrary, { maxLength: 10 }),
        fc.nat(),
        (messages, tail, at) => {
          const history = messages.map((message) => ({ ...message }) as Message);
          const cut = at % history.length;
          const lists = [
            history,
            [...history.slice(0, cut), ...tail],
            history.slice(0, cut),
            [...history, ...tail],
            history,
          ];
          for (const list of lists) expect(shape(list)).toEqual(referencePairing(list));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('splits every list of a growing, cut and continued history as one plain pass does', () => {
    fc.assert(
      fc.property(
        fc.array(messageArbitrary, { maxLength: 70 }),
        fc.array(messageArbitrary, { maxLength: 10 }),
        fc.nat(),
        (messages, tail, at) => {
          const history = messages.map((message) => ({ ...message }) as Message);
          const lists = history.map((_, length) => history.slice(0, length + 1));
          const cut = history.length === 0 ? 0 : at % history.length;
          lists.push(history.slice(0, cut), [...history.slice(0, cut), ...tail], history, [
            ...history,
            ...tail,
          ]);
          for (const list of lists) {
            const split = splitTurns(list);
            expect(split).toEqual(referenceTurns(list));
            expect(headRange(list)).toEqual(split.head);
            // What one list was given stays as it was when a longer one is split.
            expect(splitTurns(list)).toEqual(split);
          }
          for (const list of lists) expect(splitTurns(list)).toEqual(referenceTurns(list));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('indexes each tool call id at its first declaration', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 60 }), (messages) => {
        const history = messages.map((message) => ({ ...message }) as Message);
        const expected = new Map<string, number>();
        history.forEach((message, index) => {
          if (message.role === 'assistant')
            for (const call of message.toolCalls ?? [])
              if (!expected.has(call.id)) expected.set(call.id, index);
        });
        const found = new Map([...indexToolCalls(history)].map(([id, { index }]) => [id, index]));
        expect(found).toEqual(expected);
      }),
    );
  });
});

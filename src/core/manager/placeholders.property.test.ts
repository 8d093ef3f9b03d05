import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { beforeItsCall, resultBeforeCall, withLongHead } from '../../../test/support/result-before-call.js';
import { transcriptArbitrary } from '../../../test/support/transcript-arbitrary.js';
import type { CompressionEntry, CompressionState } from '../compress/index.js';
import type { Message } from '../transcript/index.js';
import { recallSpans } from './placeholders.js';

/** A state with an entry for every `every`-th tool result (recallSpans reads only the ids). */
function compressed(messages: Message[], every: number): CompressionState {
  const entries: Record<string, CompressionEntry> = {};
  let seen = 0;
  for (const message of messages)
    if (message.role === 'tool' && seen++ % every === 0)
      entries[message.toolCallId] = {
        level: 'elided',
        text: `[elided #${seen}]`,
        recallId: seen,
        source: '',
      };
  return { entries, nextRecallId: seen + 1 };
}

describe('recall spans of a list that grows', () => {
  it('are those of the same list read afresh, whatever state and kept range each send has', () => {
    fc.assert(
      fc.property(
        transcriptArbitrary,
        fc.array(fc.tuple(fc.nat(), fc.boolean(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 6 }),
        fc.option(fc.nat(), { nil: undefined }),
        (transcript, sends, misplace) => {
          const messages = withLongHead(
            misplace === undefined ? transcript : resultBeforeCall(transcript, misplace),
          );
          const whole = compressed(messages, 2);
          const early = compressed(messages.slice(0, Math.floor(messages.length / 2)), 1);
          const steps = sends.map(([at, useEarly, from, span]) => ({
            at: at % (messages.length + 1),
            state: useEarly ? early : whole,
            from: from % (messages.length + 1),
            span: span % 8,
          }));
          // A send that holds a result and not yet its call, then one that holds both.
          const split = beforeItsCall(messages);
          if (split !== undefined) steps.push({ at: split, state: whole, from: 0, span: 0 });
          steps.sort((a, b) => a.at - b.at);
          for (const { at, state, from, span } of steps) {
            const list = messages.slice(0, at);
            const start = Math.min(from, list.length);
            const end = Math.min(list.length, start + span);
            const pruned = { recallId: 99, messages: list.slice(start, end), start, end };
            const grown = recallSpans({ messages: list, state, pruned });
            // New objects of the same content: a list no earlier send walked.
            const afresh = recallSpans({ messages: structuredClone(list), state, pruned });
            expect(JSON.stringify(grown)).toBe(JSON.stringify(afresh));
            // A span for every result with an entry, in order, but those left out with the pruned turns.
            const outside = list.filter(
              (message, index) =>
                message.role === 'tool' &&
                state.entries[message.toolCallId] !== undefined &&
                (index < start || index >= end),
            );
            const results = grown.filter((each) => each.kind !== 'pruned').map((each) => each.messages[0]);
            expect(results).toEqual(outside);
            expect(results.every((message, at) => message === outside[at])).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

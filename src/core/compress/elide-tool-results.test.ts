import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codingSession, sourceOutput, toolTurn } from '../../../test/support/compaction-fixtures.js';
import { transcriptArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { createEstimator, EstimateCache } from '../tokens/index.js';
import { contentText, type Message, validatePairing } from '../transcript/index.js';
import { applyCompression } from './apply-compression.js';
import { createCompressionState } from './compression-state.js';
import { elideToolResults, newestToolRun } from './elide-tool-results.js';

const cache = new EstimateCache(createEstimator({ family: 'o200k' }));
const estimateOf = (message: Message) => cache.message(message).total;
const total = (messages: readonly Message[]) =>
  messages.reduce((sum, message) => sum + estimateOf(message), 0);
const stub = /^\[elided #\d+: /;

describe('elideToolResults', () => {
  it('elides the oldest results until the target, keeping the newest run and the head whole', () => {
    const messages = codingSession({ turns: 8, lines: 60 });
    const target = Math.floor(total(messages) * 0.6);
    const result = elideToolResults({ messages, state: createCompressionState(), target, estimateOf });
    expect(result.estimate).toBeLessThanOrEqual(target);
    const tools = result.messages.filter((message) => message.role === 'tool');
    const elided = tools.map((message) => stub.test(contentText(message.content)));
    // Nothing names any output later: oldest first, so once one is kept whole, every later one is too.
    expect(elided.indexOf(false)).toBe(result.elided.length);
    expect(elided.at(-1)).toBe(false);
    expect(result.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(result.firstChanged).toBe(messages.findIndex((message) => message.role === 'tool'));
  });

  it('keeps a read the agent goes on to edit and elides an older output nothing named since', () => {
    const messages = [
      ...codingSession({ turns: 3, lines: 40 }).slice(0, -1),
      ...toolTurn('read', 'read_file', 'src/stale.ts', sourceOutput(40, 'stale')),
      ...toolTurn('edit', 'write_file', 'src/stale.ts', 'ok'),
      ...toolTurn('last', 'read_file', 'src/other.ts', sourceOutput(10, 'other')),
    ];
    const target = total(messages) - 1;
    const result = elideToolResults({ messages, state: createCompressionState(), target, estimateOf });
    expect(result.elided).toEqual(['call_0']);
    const all = elideToolResults({ messages, state: createCompressionState(), all: true, estimateOf });
    expect(
      contentText(all.messages.find((m) => m.role === 'tool' && m.toolCallId === 'read')?.content ?? ''),
    ).toMatch(
      /^\[elided #\d+: read src\/stale\.ts, [\d,]+ tokens; outdated: src\/stale\.ts was edited later; read it again to see it\]$/,
    );
  });

  it('elides a read superseded by a later read of the same file before older outputs', () => {
    const messages = [
      ...codingSession({ turns: 3, lines: 40 }).slice(0, -1),
      ...toolTurn('first', 'read_file', 'src/again.ts', sourceOutput(40, 'again')),
      ...toolTurn('second', 'read_file', 'src/again.ts', sourceOutput(40, 'again')),
      ...toolTurn('last', 'read_file', 'src/other.ts', sourceOutput(10, 'other')),
    ];
    const target = total(messages) - 1;
    const result = elideToolResults({ messages, state: createCompressionState(), target, estimateOf });
    expect(result.elided).toEqual(['first']);
  });

  it('keeps whole the outputs used most recently, up to `protect` tokens, and elides only older ones', () => {
    const messages = codingSession({ turns: 8, lines: 60 });
    const protect = Math.ceil(estimateOf(messages[3] as Message) * 3);
    const result = elideToolResults({
      messages,
      state: createCompressionState(),
      target: 0,
      estimateOf,
      protect,
    });
    const elided = new Set(result.elided);
    // Eight outputs, the newest run never elided: of the other seven, the three used last stay.
    expect(elided).toEqual(new Set(['call_0', 'call_1', 'call_2', 'call_3']));
  });

  it('names the way back: the recall tool where it is offered', () => {
    const messages = codingSession({ turns: 4, lines: 40 });
    const result = elideToolResults({
      messages,
      state: createCompressionState(),
      all: true,
      estimateOf,
      recall: true,
    });
    const stub = contentText(result.messages.find((m) => m.role === 'tool')?.content ?? '');
    expect(stub).toMatch(/; recall #\d+ brings it back\]$/);
  });

  it('changes nothing when the request is already at the target', () => {
    const messages = codingSession({ turns: 4, lines: 20 });
    const state = createCompressionState();
    const result = elideToolResults({ messages, state, target: total(messages), estimateOf });
    expect(result.elided).toEqual([]);
    expect(result.state).toBe(state);
    expect(result.messages).toBe(messages);
  });

  it('is sticky: the same results render to the same bytes on a longer history', () => {
    fc.assert(
      fc.property(transcriptArbitrary, fc.double({ min: 0.1, max: 0.9, noNaN: true }), (messages, share) => {
        const first = elideToolResults({
          messages,
          state: createCompressionState(),
          target: Math.floor(total(messages) * share),
          estimateOf,
        });
        expect(validatePairing(first.messages).ok).toBe(true);
        const again = applyCompression({ messages, state: first.state });
        expect(again.map((message) => JSON.stringify(message))).toEqual(
          first.messages.map((message) => JSON.stringify(message)),
        );
        for (const id of first.elided) expect(newestToolRun(messages).has(id)).toBe(false);
      }),
      { numRuns: 150 },
    );
  });
});

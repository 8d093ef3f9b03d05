import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { createEstimator, EstimateCache } from '../tokens/index.js';
import type { Message } from '../transcript/index.js';
import { compressedResults } from './compressed-results.js';
import { createCompressionState } from './compression-state.js';
import { elideToolResults } from './elide-tool-results.js';

const cache = new EstimateCache(createEstimator({ family: 'o200k' }));
const estimateOf = (message: Message) => cache.message(message).total;

/** What a search says, as plain data: positions, recall ids and the calls answered. */
function described(messages: readonly Message[], found: ReturnType<typeof compressedResults>) {
  return found.results.map(({ index, message, entry, call }) => {
    expect(message).toBe(messages[index]);
    return { index, recallId: entry.recallId, call: call?.id };
  });
}

describe('compressed results', () => {
  it('found on a list grown send by send are what a search of the whole list from scratch finds', () => {
    fc.assert(
      fc.property(transcriptArbitrary, fc.integer({ min: 1, max: 4 }), (messages, step) => {
        const { state } = elideToolResults({
          messages,
          state: createCompressionState(),
          all: true,
          estimateOf,
        });
        // One array grown in place, as a tool loop grows its history; each length searched in turn.
        const grown: Message[] = [];
        for (let length = 0; length <= messages.length; length += step) {
          grown.push(...messages.slice(grown.length, length));
          const list = grown.slice();
          const incremental = described(list, compressedResults(list, state));
          const fresh = messages.slice(0, length).map((message) => ({ ...message }) as Message);
          expect(incremental).toEqual(described(fresh, compressedResults(fresh, state)));
          for (const { index } of incremental) expect(list[index]?.role).toBe('tool');
        }
      }),
      { numRuns: 150 },
    );
  });

  it('finds nothing in a state without entries', () => {
    fc.assert(
      fc.property(transcriptArbitrary, (messages) => {
        expect(compressedResults(messages, createCompressionState())).toEqual({
          results: [],
          complete: true,
        });
      }),
      { numRuns: 50 },
    );
  });
});

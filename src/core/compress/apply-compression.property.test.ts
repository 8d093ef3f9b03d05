import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { createEstimator, EstimateCache } from '../tokens/index.js';
import { contentHash, contentText, type Message } from '../transcript/index.js';
import { applyCompression } from './apply-compression.js';
import { createCompressionState, parseCompressionState } from './compression-state.js';
import { elideToolResults } from './elide-tool-results.js';

const cache = new EstimateCache(createEstimator({ family: 'o200k' }));
const estimateOf = (message: Message) => cache.message(message).total;

/** Compresses every eligible result of `messages` as far as it goes. */
function compressedState(messages: Message[]) {
  return elideToolResults({ messages, state: createCompressionState(), all: true, estimateOf });
}

/** The same conversation shape, ids and all, with other tool outputs (or other call arguments). */
function lookalike(messages: Message[], change: 'results' | 'arguments'): Message[] {
  return messages.map((message) => {
    if (change === 'results' && message.role === 'tool')
      return { ...message, content: `another conversation's output ${contentText(message.content).length}` };
    if (change === 'arguments' && message.role === 'assistant' && message.toolCalls)
      return {
        ...message,
        toolCalls: message.toolCalls.map((call) => ({ ...call, arguments: `{"other":"${call.id}"}` })),
      };
    return message;
  });
}

describe('stored compression applied to other transcripts', () => {
  it('never renders a result with text made from another result that reuses its tool-call id', () => {
    fc.assert(
      fc.property(
        transcriptArbitrary,
        fc.constantFrom('results' as const, 'arguments' as const),
        (messages, change) => {
          const { state } = compressedState(messages);
          // Through storage and back, as the proxy and the session store keep it.
          const stored = parseCompressionState(JSON.parse(JSON.stringify(state)));
          const other = lookalike(messages, change);
          const rendered = applyCompression({ messages: other, state: stored });
          expect(rendered.map((message) => JSON.stringify(message))).toEqual(
            other.map((message) => JSON.stringify(message)),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('renders the very transcript it was made from the same way, from fresh objects after storage', () => {
    fc.assert(
      fc.property(transcriptArbitrary, (messages) => {
        const result = compressedState(messages);
        const stored = parseCompressionState(JSON.parse(JSON.stringify(result.state)));
        const fresh = JSON.parse(JSON.stringify(messages)) as Message[];
        const rendered = applyCompression({ messages: fresh, state: stored });
        expect(rendered.map((message) => JSON.stringify(message))).toEqual(
          result.messages.map((message) => JSON.stringify(message)),
        );
      }),
      { numRuns: 150 },
    );
  });
});

describe('contentHash', () => {
  it('tells apart texts that differ in one character or only in where they are split', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 400 }), fc.nat(), (text, at) => {
        const index = at % text.length;
        const changed =
          text.slice(0, index) + String.fromCharCode(text.charCodeAt(index) ^ 1) + text.slice(index + 1);
        expect(contentHash([changed])).not.toBe(contentHash([text]));
        expect(contentHash([text.slice(0, index), text.slice(index)])).not.toBe(contentHash([text, '']));
        expect(contentHash([text])).toBe(contentHash([String(text)]));
      }),
    );
  });

  it('drops stored entries that carry no fingerprint (written before fingerprints existed)', () => {
    const state = parseCompressionState({
      nextRecallId: 3,
      entries: { call_1: { level: 'elided', text: '[elided #1: read_file a.ts, 10 tokens]', recallId: 1 } },
    });
    expect(state.entries).toEqual({});
  });
});

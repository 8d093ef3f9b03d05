import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { beforeItsCall, resultBeforeCall, withLongHead } from '../../../test/support/result-before-call.js';
import { transcriptArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { createEstimator, EstimateCache } from '../tokens/index.js';
import { contentHash, contentText, type Message } from '../transcript/index.js';
import { applyCompression, type RenderMemo, renderMessage } from './apply-compression.js';
import { type CompressionState, createCompressionState, parseCompressionState } from './compression-state.js';
import { elideToolResults } from './elide-tool-results.js';
import { indexToolCalls } from './tool-activity.js';

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

/**
 * Every message rendered with the calls of the whole list, nothing kept from an earlier list: what
 * `applyCompression` does for a list it has not seen grow. A memo of its own (it keeps each result's
 * fingerprint, so it must see the same lists in the same order).
 */
function renderedAfresh(messages: readonly Message[], state: CompressionState, memo: RenderMemo): Message[] {
  const calls = indexToolCalls(messages);
  return messages.map((message) =>
    message.role === 'tool'
      ? renderMessage(message, state, memo, calls.get(message.toolCallId)?.call)
      : message,
  );
}

describe('stored compression applied to a list that grows', () => {
  it('renders each longer list as a render from scratch does, whatever state each send applies', () => {
    fc.assert(
      fc.property(
        transcriptArbitrary,
        fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 6 }),
        fc.option(fc.nat(), { nil: undefined }),
        (transcript, sends, misplace) => {
          const messages = withLongHead(
            misplace === undefined ? transcript : resultBeforeCall(transcript, misplace),
          );
          const whole = compressedState(messages).state;
          const early = compressedState(messages.slice(0, Math.floor(messages.length / 2))).state;
          const memo: RenderMemo = new WeakMap();
          const scratchMemo: RenderMemo = new WeakMap();
          const lengths = sends.map(([at, useEarly]) => ({ at: at % (messages.length + 1), useEarly }));
          // A send that holds a result and not yet its call, then one that holds both.
          const split = beforeItsCall(messages);
          if (split !== undefined) lengths.push({ at: split, useEarly: false });
          lengths.sort((a, b) => a.at - b.at);
          for (const { at, useEarly } of [...lengths, { at: messages.length, useEarly: false }]) {
            const list = messages.slice(0, at);
            const state = useEarly ? early : whole;
            const grown = applyCompression({ messages: list, state, memo });
            const scratch = renderedAfresh(list, state, scratchMemo);
            expect(grown.map((message) => JSON.stringify(message))).toEqual(
              scratch.map((message) => JSON.stringify(message)),
            );
            expect(grown === list).toBe(scratch.every((message, index) => message === list[index]));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { ContextTruncatedError } from '../errors/index.js';
import { createEstimator } from '../tokens/index.js';
import { type ChatRequest, type Message, splitTurns, validatePairing } from '../transcript/index.js';
import {
  ContextWindowManager,
  type ContextWindowManagerOptions,
  type FitResult,
} from './context-window-manager.js';

/**
 * The estimator as the "exact" count too: every decision is then made on a count, none left to the
 * provider, which is what these properties are about. (`fit.uncertain.test.ts` covers the rest.)
 */
const decisive = (contextLength: number): ContextWindowManagerOptions => ({
  contextLength,
  exact: createEstimator(),
});

function fitOrNull(
  request: Parameters<ContextWindowManager['fit']>[0],
  contextLength: number,
): FitResult | null {
  try {
    return new ContextWindowManager(decisive(contextLength)).fit(request);
  } catch (error) {
    if (ContextTruncatedError.isInstance(error)) return null;
    throw error;
  }
}

const windowArbitrary = fc.integer({ min: 2_000, max: 120_000 });

// Thousands of random transcripts: minutes on a loaded machine. The timeout guards against a hang.
describe('ContextWindowManager.fit on random transcripts', { timeout: 300_000 }, () => {
  it('keeps pairing valid, the exact head, the newest turn (its tool results shortened at most), and the count within the window less the reserve', () => {
    fc.assert(
      fc.property(requestArbitrary, windowArbitrary, (request, contextLength) => {
        const result = fitOrNull(request, contextLength);
        if (result === null) return;
        const fitted = result.request.messages;
        expect(validatePairing(fitted).ok).toBe(true);
        const { head, turns } = splitTurns(request.messages);
        for (let index = 0; index < head.end; index++) expect(fitted[index]).toBe(request.messages[index]);
        const newest = turns.at(-1);
        if (newest) {
          const newestMessages = request.messages.slice(newest.start);
          const sent = fitted.slice(fitted.length - newestMessages.length);
          newestMessages.forEach((message, index) => {
            const kept = sent[index];
            if (message.role === 'tool' && result.cut.shortened > 0)
              expect({ ...kept, content: '' }).toEqual({ ...message, content: '' });
            else expect(kept).toEqual(message);
          });
        }
        // Within the budget; or, when even the floor is past it, past only the template margin:
        // a request the window holds beside the reply's reserve is not refused.
        if (result.verdict === 'fits') expect(result.estimate).toBeLessThanOrEqual(result.budget);
        else {
          expect(result.verdict).toBe('uncertain');
          expect(result.estimate).toBeLessThanOrEqual(result.window - result.reserve);
        }
        // A pruned request carries one recallable marker where the dropped turns were.
        const marker = result.recall.some((span) => span.kind === 'pruned') ? 1 : 0;
        expect(fitted.length).toBe(
          request.messages.length -
            (result.pruned ? countDropped(request.messages, result.droppedTurns) : 0) +
            marker,
        );
      }),
      { numRuns: 1_500 },
    );
  });

  it('never refuses under a larger window what it sends under a smaller one', () => {
    fc.assert(
      fc.property(requestArbitrary, windowArbitrary, windowArbitrary, (request, a, b) => {
        const [small, large] = a < b ? [a, b] : [b, a];
        const smallResult = fitOrNull(request, small);
        const largeResult = fitOrNull(request, large);
        if (smallResult === null) return;
        expect(largeResult).not.toBeNull();
        // What fits the smaller window goes out as it came under the larger one.
        if (smallResult.cut.kind === 'none') expect(largeResult?.cut.kind).toBe('none');
      }),
      { numRuns: 1_000 },
    );
  });

  it('is deterministic: the same input gives the same output', () => {
    fc.assert(
      fc.property(requestArbitrary, windowArbitrary, (request, contextLength) => {
        const copy = structuredClone(request);
        const first = fitOrNull(request, contextLength);
        const second = fitOrNull(copy, contextLength);
        expect(JSON.stringify(second)).toBe(JSON.stringify(first));
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent: fitting the same request again with the same manager sends the same bytes', () => {
    fc.assert(
      fc.property(requestArbitrary, windowArbitrary, (request, contextLength) => {
        const manager = new ContextWindowManager(decisive(contextLength));
        let first: FitResult;
        try {
          first = manager.fit(request);
        } catch (error) {
          if (ContextTruncatedError.isInstance(error)) return;
          throw error;
        }
        const second = manager.fit(request);
        expect(JSON.stringify(second.request.messages)).toBe(JSON.stringify(first.request.messages));
      }),
      { numRuns: 500 },
    );
  });

  it('drops a turn without its marker when the marker alone stands between the head and newest turn and the budget', () => {
    const request: ChatRequest = {
      format: 'openai',
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'x'.repeat(1_000) },
        { role: 'assistant', content: '' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_pending', name: 'run', arguments: '{}' }] },
      ],
      tools: [],
      extra: {},
    };
    const minimal = { ...request, messages: [request.messages[0], request.messages[2]] as Message[] };
    const window = (() => {
      for (let length = 1_000; length < 4_000; length++)
        if (fitOrNull(minimal, length) !== null) return length;
      throw new Error('no window fits the head and the newest turn');
    })();
    const fitted = fitOrNull(request, window);
    expect(fitted?.request.messages).toEqual(minimal.messages);
  });

  it('throws ContextTruncatedError only when head and newest turn alone exceed the budget', () => {
    fc.assert(
      fc.property(requestArbitrary, windowArbitrary, (request, contextLength) => {
        try {
          new ContextWindowManager(decisive(contextLength)).fit(request);
        } catch (error) {
          expect(ContextTruncatedError.isInstance(error)).toBe(true);
          const details = (error as ContextTruncatedError).details;
          expect(details.estimate).toBeGreaterThan(details.budget);
          const { head, turns } = splitTurns(request.messages);
          const newest = turns.at(-1);
          const minimal = {
            ...request,
            messages: [
              ...request.messages.slice(0, head.end),
              ...(newest ? request.messages.slice(newest.start) : []),
            ],
          };
          expect(() => new ContextWindowManager(decisive(contextLength)).fit(minimal)).toThrow(
            ContextTruncatedError,
          );
        }
      }),
      { numRuns: 500 },
    );
  });
});

function countDropped(messages: Parameters<typeof splitTurns>[0], droppedTurns: number): number {
  const { turns } = splitTurns(messages);
  return turns.slice(0, droppedTurns).reduce((sum, range) => sum + range.end - range.start, 0);
}

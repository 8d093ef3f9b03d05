import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestArbitrary } from '../../../test/support/transcript-arbitrary.js';
import type { Summarizer } from '../compact/index.js';
import { ContextWindowManager } from '../manager/index.js';
import { ESTIMATE_OVERCOUNT_CEILING } from '../tokens/index.js';
import { type Message, validatePairing } from '../transcript/index.js';
import { recoverFromOverflow } from './recover-from-overflow.js';

const summarize: Summarizer = async (request) => ({
  text: `Summary of ${request.messages.length} messages.`,
});

describe('recoverFromOverflow on random transcripts', () => {
  it('loses no message and, unless it gives up, retries with a request that fits the learned window', async () => {
    await fc.assert(
      fc.asyncProperty(
        requestArbitrary,
        fc.integer({ min: 2_000, max: 40_000 }),
        fc.boolean(),
        async (request, window, withModel) => {
          const manager = new ContextWindowManager({ contextLength: 200_000 });
          const history = request.messages;
          const result = await recoverFromOverflow({
            request,
            overflow: { kind: 'context', window, pattern: 'test' },
            manager,
            ...(withModel ? { summarize } : {}),
          });
          const messages = 'messages' in result ? result.messages : undefined;
          const removed = 'removed' in result ? result.removed : [];
          const kept = new Set<Message>(messages ?? history);
          for (const message of history) expect(kept.has(message) || removed.includes(message)).toBe(true);
          for (const message of removed) expect(kept.has(message)).toBe(false);
          if (result.action === 'give_up') return;
          const sent = result.request;
          expect(sent).toBeDefined();
          if (!sent) return;
          expect(validatePairing(sent.messages).ok).toBe(true);
          const { maxTokens, ...prompt } = sent;
          const measured = manager.measure(prompt);
          expect(measured.window).toBe(window);
          if (result.action === 'last_try') {
            // Sent only because the estimate's margin could not rule out a fit; the history is kept.
            expect(measured.estimate / ESTIMATE_OVERCOUNT_CEILING).toBeLessThanOrEqual(measured.budget);
            expect(messages).toBeUndefined();
            return;
          }
          expect(measured.estimate).toBeLessThanOrEqual(measured.budget);
          expect(measured.estimate + (maxTokens ?? 0)).toBeLessThanOrEqual(window);
        },
      ),
      { numRuns: 200 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { type Message, validatePairing } from '../transcript/index.js';
import { compactTranscript } from './compact-transcript.js';
import type { Summarizer } from './summarizer.js';

const summarize: Summarizer = async (request) => ({
  text: `Summary of ${request.messages.length} messages.`,
});

describe('compactTranscript on random transcripts', () => {
  it('loses no message: each one is either in the compacted transcript or in the compacted-away record', async () => {
    await fc.assert(
      fc.asyncProperty(
        transcriptArbitrary,
        fc.integer({ min: 2_000, max: 60_000 }),
        fc.option(fc.integer({ min: 1, max: 6 })),
        fc.boolean(),
        async (messages, window, keepTurns, withModel) => {
          const result = await compactTranscript({
            messages,
            window,
            ...(keepTurns === null ? {} : { keepTurns }),
            ...(withModel ? { summarize } : {}),
          });
          if (result.messages === undefined) {
            expect(result.ok).toBe(false);
            return;
          }
          const kept = new Set<Message>(result.messages);
          const removed = new Set<Message>(result.removed);
          for (const message of messages) expect(kept.has(message) !== removed.has(message)).toBe(true);
          for (const message of result.messages)
            expect(messages.includes(message) || message === result.summary).toBe(true);
          expect(validatePairing(result.messages).ok).toBe(true);
          expect(result.recall?.[0]?.messages).toEqual(result.removed);
        },
      ),
      { numRuns: 300 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { newestToolRun } from '../compress/index.js';
import { contentText, type Message, splitTurns, validatePairing } from '../transcript/index.js';
import { shortenNewestTurn } from './truncate-transcript.js';

const size = (messages: readonly Message[]) =>
  messages.reduce((sum, message) => sum + contentText(message.content).length, 0);

describe('shortenNewestTurn on random transcripts', () => {
  it("keeps the head and every text but the newest run's tool results, cuts those to their ends, and fits", () => {
    fc.assert(
      fc.property(transcriptArbitrary, fc.integer({ min: 0, max: 20_000 }), (messages, room) => {
        const fits = (candidate: Message[]) => size(candidate) <= room;
        let nextId = 1;
        const cut = shortenNewestTurn({
          messages,
          recallId: () => nextId++,
          fits,
          tokensOf: (message) => contentText(message.content).length,
          markers: { recall: false },
        });
        if (cut === undefined) return;
        const { head, turns } = splitTurns(messages);
        const newest = turns.at(-1);
        expect(newest).toBeDefined();
        if (newest === undefined) return;
        expect(fits(cut.messages)).toBe(true);
        expect(validatePairing(cut.messages).ok).toBe(true);
        // The head as it was, the same objects; a marker only where turns went.
        expect(cut.messages.slice(0, head.end)).toEqual(messages.slice(0, head.end));
        cut.messages.slice(0, head.end).forEach((message, index) => {
          expect(message).toBe(messages[index]);
        });
        const dropped = newest.start - head.end;
        expect(cut.truncation?.removed.length ?? 0).toBe(dropped);
        const turn = messages.slice(newest.start);
        const kept = cut.messages.slice(head.end + (dropped > 0 ? 1 : 0));
        expect(kept).toHaveLength(turn.length);
        const run = newestToolRun(turn);
        const shortened = new Map(cut.results.map((result) => [result.original, result.shortened]));
        turn.forEach((message, index) => {
          const now = kept[index] as Message;
          if (message.role !== 'tool' || !run.has(message.toolCallId)) {
            expect(now).toBe(message);
            return;
          }
          if (now === message) return;
          // Its start and end, the marker between: nothing but the original's own text around it.
          expect(shortened.get(message)).toBe(now);
          const [start, end] = contentText(now.content).split(/\n\[… [^\]]*\]\n/);
          const original = contentText(message.content);
          expect(original.startsWith(start ?? '')).toBe(true);
          expect(original.endsWith(end ?? '')).toBe(true);
        });
      }),
    );
  });
});

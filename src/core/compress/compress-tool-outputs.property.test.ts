import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptArbitrary } from '../../../test/support/transcript-arbitrary.js';
import { createEstimator, EstimateCache } from '../tokens/index.js';
import { contentText, type Message, splitTurns, validatePairing } from '../transcript/index.js';
import { compressToolOutputs, newestToolRun } from './compress-tool-outputs.js';
import { type CompressionState, createCompressionState, levelRank } from './compression-state.js';

const cache = new EstimateCache(createEstimator({ family: 'o200k' }));
const estimateOf = (message: Message) => cache.message(message).total;
const count = (text: string) => cache.counter.count(text);

/** Pairing-safe prefixes of a transcript: the head plus the first k turns, growing. */
function prefixes(messages: Message[]): Message[][] {
  const { head, turns } = splitTurns(messages);
  return [messages.slice(0, head.end), ...turns.map((turn) => messages.slice(0, turn.end))];
}

function renderedText(messages: readonly Message[], id: string): string | undefined {
  const message = messages.find((item) => item.role === 'tool' && item.toolCallId === id);
  return message ? contentText(message.content) : undefined;
}

describe('compressToolOutputs on growing random transcripts', () => {
  it('only ever escalates, and a result whose level stays renders to the same bytes on every later request', () => {
    fc.assert(
      fc.property(
        transcriptArbitrary,
        fc.array(fc.double({ min: 0, max: 1.6, noNaN: true }), { minLength: 1, maxLength: 30 }),
        (messages, pressures) => {
          let state: CompressionState = createCompressionState();
          let previous: readonly Message[] | undefined;
          prefixes(messages).forEach((prefix, step) => {
            const pressure = pressures[step % pressures.length] as number;
            const estimate = 1 + prefix.reduce((sum, message) => sum + estimateOf(message), 0);
            const result = compressToolOutputs({
              messages: prefix,
              state,
              budget: Math.max(1, Math.ceil(estimate / Math.max(pressure, 0.01))),
              estimate,
              estimateOf,
              count,
            });
            for (const [id, entry] of Object.entries(state.entries)) {
              const next = result.state.entries[id];
              expect(next).toBeDefined();
              expect(levelRank(next?.level ?? 'full')).toBeGreaterThanOrEqual(levelRank(entry.level));
              if (next?.level === entry.level) {
                expect(next.text).toBe(entry.text);
                if (previous !== undefined)
                  expect(renderedText(result.messages, id)).toBe(renderedText(previous, id));
              }
            }
            const { head } = splitTurns(prefix);
            for (let index = 0; index < head.end; index++) expect(result.messages[index]).toBe(prefix[index]);
            for (const id of newestToolRun(prefix)) expect(result.state.entries[id]).toBe(state.entries[id]);
            expect(validatePairing(result.messages).ok).toBe(true);
            expect(result.messages).toHaveLength(prefix.length);
            state = result.state;
            previous = result.messages;
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is deterministic: the same transcript, state and pressure give the same bytes', () => {
    fc.assert(
      fc.property(
        transcriptArbitrary,
        fc.double({ min: 0.5, max: 1.5, noNaN: true }),
        (messages, pressure) => {
          const estimate = 1 + messages.reduce((sum, message) => sum + estimateOf(message), 0);
          const run = (input: Message[]) =>
            compressToolOutputs({
              messages: input,
              state: createCompressionState(),
              budget: Math.ceil(estimate / pressure),
              estimate,
              estimateOf,
              count,
            });
          const first = run(messages);
          const second = run(structuredClone(messages));
          expect(JSON.stringify(second.messages)).toBe(JSON.stringify(first.messages));
          expect(second.state).toEqual(first.state);
        },
      ),
      { numRuns: 200 },
    );
  });
});

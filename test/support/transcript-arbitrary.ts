/** fast-check generators for random transcripts: parallel tool calls, empty and huge contents, CJK and emoji, multi-user turns. */
import fc from 'fast-check';
import type { ChatRequest, Message } from '../../src/core/index.js';

const cjk = fc
  .array(fc.integer({ min: 0x4e00, max: 0x9fff }), { maxLength: 200 })
  .map((codes) => String.fromCodePoint(...codes));
const emoji = fc
  .array(fc.constantFrom('😀', '👩‍💻', '🇯🇵', '👍🏽', '🔥', ' '), { maxLength: 100 })
  .map((parts) => parts.join(''));
const huge = fc
  .tuple(
    fc.constantFrom('line of output\n', 'x', '{"k":1},', '中文'),
    fc.integer({ min: 1_000, max: 20_000 }),
  )
  .map(([unit, times]) => unit.repeat(times));

/** Text of every shape the estimator must handle. */
export const textArbitrary = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
  { weight: 1, arbitrary: cjk },
  { weight: 1, arbitrary: emoji },
  { weight: 1, arbitrary: huge },
);

interface TurnShape {
  text: string;
  results: string[];
  followUp: string | null;
}

const turnArbitrary: fc.Arbitrary<TurnShape> = fc.record({
  text: textArbitrary,
  results: fc.array(textArbitrary, { maxLength: 4 }),
  followUp: fc.option(textArbitrary, { freq: 4 }),
});

/** A random valid transcript: optional system run, first user message, turns, maybe a pending call at the end. */
export const transcriptArbitrary: fc.Arbitrary<Message[]> = fc
  .record({
    systems: fc.array(textArbitrary, { maxLength: 2 }),
    task: textArbitrary,
    turns: fc.array(turnArbitrary, { maxLength: 25 }),
    pending: fc.boolean(),
  })
  .map(({ systems, task, turns, pending }) => {
    const messages: Message[] = systems.map((content) => ({ role: 'system', content }));
    messages.push({ role: 'user', content: task });
    turns.forEach((turn, turnIndex) => {
      const ids = turn.results.map((_, callIndex) => `call_${turnIndex}_${callIndex}`);
      messages.push({
        role: 'assistant',
        content: turn.text,
        ...(ids.length > 0
          ? {
              toolCalls: ids.map((id) => ({
                id,
                name: 'read_file',
                arguments: JSON.stringify({ path: `src/${id}.ts` }),
              })),
            }
          : {}),
      });
      for (const [callIndex, content] of turn.results.entries()) {
        messages.push({ role: 'tool', toolCallId: ids[callIndex] as string, content });
      }
      if (turn.followUp !== null) messages.push({ role: 'user', content: turn.followUp });
    });
    if (pending)
      messages.push({
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_pending', name: 'run', arguments: '{}' }],
      });
    return messages;
  });

/** A request around a random transcript, with a tool or two. */
export const requestArbitrary: fc.Arbitrary<ChatRequest> = fc
  .tuple(transcriptArbitrary, fc.boolean())
  .map(([messages, withTools]) => ({
    format: 'openai',
    model: 'gpt-4o',
    messages,
    tools: withTools
      ? [
          {
            name: 'read_file',
            description: 'Read a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
          },
        ]
      : [],
    extra: {},
  }));

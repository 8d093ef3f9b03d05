import { describe, expect, it } from 'vitest';
import {
  type ChatRequest,
  classifyOverflow,
  type Message,
  splitTurns,
  toOpenAIChat,
  validatePairing,
} from '../../src/core/index.js';
import {
  countRequest,
  createReplayProvider,
  readTranscript,
  replayMetrics,
  replayTranscript,
} from '../support/transcript-replay/index.js';

const FIXTURE = new URL('../fixtures/transcripts/pi-sonnet-4-5-2025-11-20.jsonl', import.meta.url).pathname;
const WINDOW = 8_192;

/** The request of the step whose reply is message `at`: the recorded history before it. */
function requestBefore(messages: readonly Message[], at: number): ChatRequest {
  return { format: 'openai', messages: messages.slice(0, at), tools: [], extra: {} };
}
const STEPS = 30;

function wire(message: Message): string {
  return JSON.stringify(
    toOpenAIChat({ format: 'openai', messages: [message], tools: [], extra: {} }).messages[0],
  );
}

describe('replaying a recorded agent session through the driver', () => {
  const transcript = readTranscript(FIXTURE);

  it('reads every recorded step with its usage and a reply at the step', () => {
    expect(transcript.steps.length).toBeGreaterThanOrEqual(STEPS);
    for (const step of transcript.steps) {
      expect(transcript.messages[step.at]?.role).toBe('assistant');
      expect(step.usage.input + step.usage.cacheRead + step.usage.cacheWrite).toBeGreaterThan(0);
    }
  });

  it('has the provider reject a request over its window with OpenAI wording, and count one under it', async () => {
    const provider = createReplayProvider({ window: 1_000, model: 'gpt-4o' });
    const step = transcript.steps.find(
      (candidate) => countRequest(requestBefore(transcript.messages, candidate.at)) > 1_000,
    );
    if (!step) throw new Error('the fixture has no step over 1,000 tokens');
    const request = requestBefore(transcript.messages, step.at);
    provider.answerWith(transcript.messages[step.at] as Message);
    const fit = { budget: 900, window: 1_000 } as never;
    const classify = (answer: { body?: string }) => classifyOverflow({ body: answer.body ?? '' });
    const rejected = await provider.transport.send(request, { attempt: 1, fit, classify });
    expect(rejected.ok).toBe(false);
    expect(!rejected.ok && rejected.status).toBe(400);
    expect(!rejected.ok && JSON.parse(rejected.body ?? '{}').error.code).toBe('context_length_exceeded');
    const first = transcript.steps[0];
    if (!first) throw new Error('the fixture has no step');
    const small = requestBefore(transcript.messages, first.at);
    provider.answerWith(transcript.messages[first.at] as Message);
    const answered = await provider.transport.send(small, { attempt: 1, fit, classify });
    expect(answered.ok && answered.usage?.promptTokens).toBe(countRequest(small));
    expect(answered.ok && answered.response).toBe(transcript.messages[first.at]);
  });

  it(`keeps pairing, the head and the newest turn in every request at ${WINDOW} tokens, never over the window twice in a row`, async () => {
    const run = await replayTranscript({ transcript, window: WINDOW, steps: STEPS });
    expect(run.steps).toHaveLength(STEPS);
    expect(run.sends.length).toBeGreaterThanOrEqual(
      run.steps.filter((step) => step.outcome === 'answered').length,
    );
    for (const send of run.sends) {
      const sent = send.request.messages;
      expect(validatePairing(sent).ok).toBe(true);
      const sentWire = new Set(sent.map(wire));
      const { head, turns } = splitTurns(send.caller.messages);
      for (const message of send.caller.messages.slice(head.start, head.end))
        expect(sentWire.has(wire(message))).toBe(true);
      const newest = turns.at(-1);
      const newestMessages = newest ? send.caller.messages.slice(newest.start, newest.end) : [];
      for (const message of newestMessages.filter((candidate) => candidate.role !== 'tool'))
        expect(sentWire.has(wire(message))).toBe(true);
    }
    const metrics = replayMetrics(run);
    expect(metrics.overWindowRun).toBeLessThanOrEqual(1);
    expect(metrics.sends).toBe(run.sends.length);
  });
});

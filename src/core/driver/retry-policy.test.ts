import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AttemptObservation,
  type AttemptState,
  DEFAULT_RETRY_POLICY,
  initialAttemptState,
  nextAttempt,
} from './retry-policy.js';

const overflow: AttemptObservation = { kind: 'overflow', overflow: { kind: 'context', pattern: 'test' } };

function run(observations: AttemptObservation[]) {
  let state: AttemptState = initialAttemptState();
  return observations.map((observation) => {
    const step = nextAttempt(state, observation, DEFAULT_RETRY_POLICY);
    state = step.state;
    return step.decision;
  });
}

describe('nextAttempt', () => {
  it('retries an interrupted stream three times, then fails with stream_interrupted', () => {
    const decisions = run(Array(4).fill({ kind: 'stream_interrupted' }));
    expect(decisions.slice(0, 3)).toEqual(
      [1, 2, 3].map((attempt) => ({ next: 'retry', reason: 'stream_interrupted', attempt })),
    );
    expect(decisions[3]).toEqual({ next: 'fail', reason: 'stream_interrupted' });
  });

  it('never resends a stream that went silent past a timeout, even with retries left', () => {
    expect(run([{ kind: 'stream_stalled' }])).toEqual([{ next: 'fail', reason: 'stream_interrupted' }]);
    expect(run([{ kind: 'stream_interrupted' }, { kind: 'stream_stalled' }])).toEqual([
      { next: 'retry', reason: 'stream_interrupted', attempt: 1 },
      { next: 'fail', reason: 'stream_interrupted' },
    ]);
  });

  it('retries invalid tool arguments once, then fails with invalid_tool_arguments', () => {
    expect(run([{ kind: 'invalid_tool_arguments' }, { kind: 'invalid_tool_arguments' }])).toEqual([
      { next: 'retry', reason: 'invalid_tool_arguments', attempt: 1 },
      { next: 'fail', reason: 'invalid_tool_arguments' },
    ]);
  });

  it('retries a reply cut off by the window once, then returns it as it is', () => {
    expect(run([{ kind: 'context_exhausted' }, { kind: 'context_exhausted' }])).toEqual([
      { next: 'retry', reason: 'context_exhausted', attempt: 1 },
      { next: 'return' },
    ]);
  });

  it('resends a turn whose prompt the server silently truncated once, then returns the reply as it is', () => {
    expect(run([{ kind: 'silent_truncation' }, { kind: 'silent_truncation' }])).toEqual([
      { next: 'retry', reason: 'silent_truncation', attempt: 1 },
      { next: 'return' },
    ]);
  });

  it('recovers one overflow, and ends a second one as context_truncated', () => {
    expect(run([overflow, { kind: 'stream_interrupted' }, overflow])).toEqual([
      { next: 'recover' },
      { next: 'retry', reason: 'stream_interrupted', attempt: 1 },
      { next: 'fail', reason: 'context_truncated' },
    ]);
  });

  it('never retries an abort or a provider failure', () => {
    expect(run([{ kind: 'aborted' }])).toEqual([{ next: 'fail', reason: 'aborted' }]);
    expect(run([{ kind: 'failed' }])).toEqual([{ next: 'fail', reason: 'provider_error' }]);
  });

  it('honours a policy of no retries (the caller already has the reply)', () => {
    const none = { streamInterrupted: 0, invalidToolArguments: 0, contextExhausted: 0, silentTruncation: 0 };
    const state = initialAttemptState();
    expect(nextAttempt(state, { kind: 'stream_interrupted' }, none).decision).toEqual({
      next: 'fail',
      reason: 'stream_interrupted',
    });
    expect(nextAttempt(state, { kind: 'context_exhausted' }, none).decision).toEqual({ next: 'return' });
    expect(nextAttempt(state, { kind: 'silent_truncation' }, none).decision).toEqual({ next: 'return' });
  });

  it('always ends: any sequence of observations reaches return or fail within the allowances', () => {
    const observation = fc.constantFrom<AttemptObservation>(
      { kind: 'stream_interrupted' },
      { kind: 'invalid_tool_arguments' },
      { kind: 'context_exhausted' },
      { kind: 'silent_truncation' },
      overflow,
    );
    fc.assert(
      fc.property(fc.array(observation, { minLength: 1, maxLength: 40 }), (observations) => {
        const decisions = run(observations);
        const end = decisions.findIndex((decision) => decision.next === 'return' || decision.next === 'fail');
        const budget =
          DEFAULT_RETRY_POLICY.streamInterrupted +
          DEFAULT_RETRY_POLICY.invalidToolArguments +
          DEFAULT_RETRY_POLICY.contextExhausted +
          DEFAULT_RETRY_POLICY.silentTruncation +
          1;
        if (end === -1) expect(decisions.length).toBeLessThanOrEqual(budget);
        else expect(end).toBeLessThanOrEqual(budget);
      }),
    );
  });
});

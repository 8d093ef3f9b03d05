/**
 * @module
 * The retry classes of one send, as a pure state machine: what happens after each attempt, given
 * what it came to and how many retries of each class were spent. The driver runs it; tests drive it
 * step by step.
 */
import type { OverflowInfo } from '../overflow/index.js';

/** How many times each class of failed attempt is repeated within one send. */
export interface RetryPolicy {
  /** A stream that broke off before the caller saw any of it (default 3). */
  streamInterrupted: number;
  /** Tool-call arguments that are not JSON (default 1; 0 where the caller already has the reply). */
  invalidToolArguments: number;
  /** A reply cut off by the window (default 1; 0 where the caller already has the reply). */
  contextExhausted: number;
  /**
   * A reply to a prompt the server silently cut to a smaller window (default 1; 0 where the caller
   * already has the reply): the turn is fitted again to the window the report showed and resent.
   */
  silentTruncation: number;
}

/**
 * The tool loop's classes: 3 stream retries, 1 for invalid arguments, 1 for an exhausted reply, 1
 * for a silently truncated prompt.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  streamInterrupted: 3,
  invalidToolArguments: 1,
  contextExhausted: 1,
  silentTruncation: 1,
};

/** Why an attempt is repeated. */
export type RetryReason =
  | 'stream_interrupted'
  | 'invalid_tool_arguments'
  | 'context_exhausted'
  | 'silent_truncation';

/** Why a send ends without a reply. */
export type SendFailureReason =
  /** Nothing that can be sent fits, or the provider rejected the recovered request too. */
  | 'context_truncated'
  /** The provider failed in a way the retry classes do not cover (auth, a bad request, 5xx…). */
  | 'provider_error'
  | 'stream_interrupted'
  | 'invalid_tool_arguments'
  | 'aborted';

/** Retries spent so far in one send, and whether its one recovery was used. */
export interface AttemptState {
  streamInterrupted: number;
  invalidToolArguments: number;
  contextExhausted: number;
  silentTruncation: number;
  recovered: boolean;
  /** The last attempt's stream went silent past a timeout (the send ends: see `stream_stalled`). */
  stalled?: boolean;
}

/** A fresh send: nothing spent. */
export function initialAttemptState(): AttemptState {
  return {
    streamInterrupted: 0,
    invalidToolArguments: 0,
    contextExhausted: 0,
    silentTruncation: 0,
    recovered: false,
  };
}

/** What one attempt came to, as the driver saw it. */
export type AttemptObservation =
  | { kind: 'answered' }
  | { kind: 'invalid_tool_arguments' }
  | { kind: 'context_exhausted' }
  /** A reply came, but the server silently cut the prompt; the window it kept was learned. */
  | { kind: 'silent_truncation' }
  | { kind: 'stream_interrupted' }
  /** The stream went silent past a timeout: not sent again (see `TransportError.stalled`). */
  | { kind: 'stream_stalled' }
  | { kind: 'overflow'; overflow: OverflowInfo }
  | { kind: 'failed' }
  | { kind: 'aborted' };

/** What to do next. */
export type AttemptDecision =
  | { next: 'return' }
  | { next: 'retry'; reason: RetryReason; attempt: number }
  | { next: 'recover' }
  | { next: 'fail'; reason: SendFailureReason };

const CLASS_OF = {
  stream_interrupted: 'streamInterrupted',
  invalid_tool_arguments: 'invalidToolArguments',
  context_exhausted: 'contextExhausted',
  silent_truncation: 'silentTruncation',
} as const satisfies Record<RetryReason, keyof RetryPolicy>;

/**
 * The transition after one attempt. A retry class past its allowance ends the send with that class
 * as the reason, except a reply (exhausted, or to a truncated prompt), which is then returned as it is. An overflow is
 * recovered once; a second one ends the send as `context_truncated`.
 *
 * @example
 * const { state, decision } = nextAttempt(initialAttemptState(), { kind: 'stream_interrupted' }, DEFAULT_RETRY_POLICY);
 * decision; // { next: 'retry', reason: 'stream_interrupted', attempt: 1 }
 */
export function nextAttempt(
  state: AttemptState,
  observation: AttemptObservation,
  policy: RetryPolicy,
): { state: AttemptState; decision: AttemptDecision } {
  switch (observation.kind) {
    case 'answered':
      return { state, decision: { next: 'return' } };
    case 'aborted':
      return { state, decision: { next: 'fail', reason: 'aborted' } };
    case 'failed':
      return { state, decision: { next: 'fail', reason: 'provider_error' } };
    case 'stream_stalled':
      return { state: { ...state, stalled: true }, decision: { next: 'fail', reason: 'stream_interrupted' } };
    case 'overflow':
      if (state.recovered) return { state, decision: { next: 'fail', reason: 'context_truncated' } };
      return { state: { ...state, recovered: true }, decision: { next: 'recover' } };
    case 'stream_interrupted':
    case 'invalid_tool_arguments':
    case 'context_exhausted':
    case 'silent_truncation': {
      const key = CLASS_OF[observation.kind];
      if (state[key] >= policy[key])
        return {
          state,
          decision:
            observation.kind === 'context_exhausted' || observation.kind === 'silent_truncation'
              ? { next: 'return' }
              : { next: 'fail', reason: observation.kind },
        };
      const spent = state[key] + 1;
      return {
        state: { ...state, [key]: spent },
        decision: { next: 'retry', reason: observation.kind, attempt: spent },
      };
    }
  }
}

/**
 * @module
 * Why a tool-loop run ended: a typed union with string values that round-trip, and whether running
 * the same thing again could end differently.
 */

/** Every way a run can end. */
export const TERMINATION_REASONS = [
  /** The model answered without asking for a tool. */
  'completed',
  /** The iteration cap was hit; the synthesis send (no tools) gave the final answer. */
  'max_iterations',
  /** Even the smallest valid request does not fit the window; no provider call was made for it. */
  'context_truncated',
  /** The provider failed in a way retries did not fix (auth, bad request, persistent 5xx…). */
  'provider_error',
  /** The stream broke off more often than the retry class allows (3 retries). */
  'stream_interrupted',
  /** The model sent tool-call arguments that are not valid JSON, again after one retry. */
  'invalid_tool_arguments',
  /** The caller aborted (Ctrl+C, a signal); never retried. */
  'aborted',
  /** The run stopped after `suspendAfter` turns as asked; `result.state` resumes it. */
  'suspended',
] as const;

/** Why a run ended. */
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

const RETRYABLE: ReadonlySet<TerminationReason> = new Set([
  'provider_error',
  'stream_interrupted',
  'invalid_tool_arguments',
]);

/**
 * Whether starting the run again unchanged could end differently. `context_truncated` is not: the
 * same request fails the same way; `aborted` is the user's decision.
 */
export function isRetryable(reason: TerminationReason): boolean {
  return RETRYABLE.has(reason);
}

/** Reads a termination reason from its string value; `undefined` for anything else. */
export function parseTerminationReason(value: string): TerminationReason | undefined {
  return (TERMINATION_REASONS as readonly string[]).includes(value)
    ? (value as TerminationReason)
    : undefined;
}

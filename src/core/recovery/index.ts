/**
 * @module
 * Recovery from overflows: per kind (`budget`: lower `max_tokens`; `output_cap`: lower the cap;
 * `context`: the escalation chain of compaction, a smaller kept tail, forced prune, hard truncation,
 * the newest turn's tool results shortened and the non-LLM fallback), one recovery per turn, and a
 * clear stop when nothing can fit.
 */
export { recoverFromOverflow } from './recover-from-overflow.js';
export { statesLowerBound } from './recovery-context.js';
export {
  describeRecoveryStep,
  type GiveUpReason,
  type GiveUpRecovery,
  type LastTryRecovery,
  type LoweredCapRecovery,
  type RecoverFromOverflowOptions,
  type RecoveryAction,
  type RecoveryResult,
  type RecoveryStep,
  type ReducedHistoryRecovery,
  type RetryRecovery,
} from './recovery-result.js';
export { explainFloor, smallestTranscript } from './smallest-request.js';
export {
  fallbackMarker,
  fallbackToNewest,
  newestUnitStart,
  type TranscriptCut,
  truncateTranscript,
  truncationMarker,
} from './truncate-transcript.js';

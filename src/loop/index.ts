/**
 * @module
 * The tool loop: `runToolLoop` bounds every provider send with the manager, recovers overflows,
 * retries by class, persists turns, and ends with a typed termination reason.
 */

export { limitToolResult, TOOL_RESULT_BUDGET_SHARE } from './limit-tool-result.js';
export type { LoopEvent } from './loop-events.js';
export {
  createLoopState,
  type LoopState,
  parseLoopState,
  serializeLoopState,
  type UsageTotals,
} from './loop-state.js';
export {
  EXHAUSTION_COMPACT_RATIO,
  EXHAUSTION_RATIO,
  INVALID_ARGUMENTS_RETRIES,
  type LoopRecover,
  type LoopRecoveryResult,
  type LoopResult,
  type RunToolLoopOptions,
  runToolLoop,
  STREAM_RETRIES,
} from './run-tool-loop.js';
export {
  isRetryable,
  parseTerminationReason,
  TERMINATION_REASONS,
  type TerminationReason,
} from './termination-reason.js';
export { definitionOf, type LoopTool } from './tool.js';

/**
 * @module
 * The tool loop: `runToolLoop` sends every request through the conversation's driver (fitted,
 * recovered, retried by class), runs the tools, reports turns through hooks, and ends with a typed
 * termination reason.
 */
export { clientSummarizer, clientTransport } from './client-transport.js';
export { limitToolResult } from './limit-tool-result.js';
export type { LoopEvent } from './loop-events.js';
export type { LoopHooks, LoopTurn } from './loop-hooks.js';
export {
  createLoopState,
  type LoopState,
  parseLoopState,
  serializeLoopState,
  type UsageTotals,
} from './loop-state.js';
export { type LoopResult, type RunToolLoopOptions, runToolLoop } from './run-tool-loop.js';
export {
  isRetryable,
  parseTerminationReason,
  TERMINATION_REASONS,
  type TerminationReason,
} from './termination-reason.js';
export { definitionOf, type LoopTool } from './tool.js';

/**
 * @module
 * `spillway/loop`: a tool loop on the driver — tools, termination reasons, hooks, a state that
 * suspends and resumes — and the transport and summarizer that put a model client under a driver.
 *
 * @example
 * import { runToolLoop } from 'spillway/loop';
 * const result = await runToolLoop({ client, driver, model, messages, tools });
 */
export {
  clientSummarizer,
  clientTransport,
  type LoopEvent,
  type LoopHooks,
  type LoopResult,
  type LoopTool,
  parseLoopState,
  type RunToolLoopOptions,
  runToolLoop,
  serializeLoopState,
  TERMINATION_REASONS,
  type TerminationReason,
} from './index.js';

import type { SpillwayEvent } from '../core/index.js';
import type { StreamEvent } from '../providers/index.js';
import type { TerminationReason } from './termination-reason.js';

/**
 * What a run reports as it goes, named noun-verb: every event of the send path (fits, cuts,
 * calibration, overflows, recoveries, retries, usage, compactions), tagged with the iteration it
 * belongs to, and the loop's own.
 */
export type LoopEvent =
  | (SpillwayEvent & { iteration: number })
  | { type: 'send-start'; iteration: number; tools: number; synthesis: boolean }
  | { type: 'tool-start'; iteration: number; callId: string; name: string }
  | { type: 'tool-end'; iteration: number; callId: string; name: string; isError: boolean }
  /** A tool result above its share of the budget kept only its start and end. */
  | { type: 'tool-result-cut'; iteration: number; callId: string; name: string; maxTokens: number }
  | { type: 'stream'; iteration: number; event: StreamEvent }
  | { type: 'end'; reason: TerminationReason; iterations: number };

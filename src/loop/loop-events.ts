import type { ManagerEvent } from '../core/index.js';
import type { ModelUsage, StreamEvent } from '../providers/index.js';
import type { TerminationReason } from './termination-reason.js';

/** What a run reports as it goes, named noun-verb. Manager events (`fit`, `prune`, `calibrate`, `compress`, `notice`) pass through. */
export type LoopEvent =
  | ManagerEvent
  | { type: 'send-start'; iteration: number; tools: number; synthesis: boolean }
  | { type: 'usage'; iteration: number; usage: ModelUsage }
  | {
      type: 'retry';
      iteration: number;
      reason: 'stream_interrupted' | 'invalid_tool_arguments' | 'context_exhausted';
      attempt: number;
      message: string;
    }
  | { type: 'recovery'; iteration: number; action: string; steps: string[]; overflow: string }
  | { type: 'compaction-start'; iteration: number; reason: 'overflow' | 'exhaustion' | 'manual' }
  | { type: 'compaction-end'; iteration: number; removed: number; kind: string }
  | { type: 'tool-start'; iteration: number; callId: string; name: string }
  | { type: 'tool-end'; iteration: number; callId: string; name: string; isError: boolean }
  /** A tool result above its share of the budget kept only its start and end. */
  | { type: 'tool-result-cut'; iteration: number; callId: string; name: string; maxTokens: number }
  | { type: 'stream'; iteration: number; event: StreamEvent }
  | { type: 'end'; reason: TerminationReason; iterations: number };

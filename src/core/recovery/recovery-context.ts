/**
 * @module
 * What every recovery step shares: the inputs, the steps taken so far, and how a result is made.
 */
import { ContextTruncatedError } from '../errors/index.js';
import type { ContextWindowManager, FitResult } from '../manager/index.js';
import type { OverflowInfo } from '../overflow/index.js';
import type { ChatRequest } from '../transcript/index.js';
import type {
  GiveUpRecovery,
  LastTryRecovery,
  LoweredCapRecovery,
  RecoverFromOverflowOptions,
  RecoveryResult,
  RecoveryStep,
  ReducedHistoryRecovery,
} from './recovery-result.js';

/** A result without the fields every result shares. */
export type Unfinished =
  | Omit<LoweredCapRecovery, 'steps' | 'window'>
  | Omit<ReducedHistoryRecovery, 'steps' | 'window'>
  | Omit<LastTryRecovery, 'steps' | 'window'>
  | Omit<GiveUpRecovery, 'steps' | 'window'>;

/** The state one recovery runs on. */
export interface RecoveryContext {
  options: RecoverFromOverflowOptions;
  manager: ContextWindowManager;
  overflow: OverflowInfo;
  /** The caller's request with the whole history. */
  base: ChatRequest;
  model: string | undefined;
  /** The window the overflow states, if any. */
  stated?: number;
  steps: RecoveryStep[];
  /** Adds the steps and the stated window to a result. */
  finish: (result: Unfinished) => RecoveryResult;
}

/** `manager.fit`, or `undefined` when nothing fits. */
export function tryFit(manager: ContextWindowManager, request: ChatRequest): FitResult | undefined {
  try {
    return manager.fit(request);
  } catch (error) {
    if (ContextTruncatedError.isInstance(error)) return undefined;
    throw error;
  }
}

/**
 * Whether the input figure is a lower bound rather than the prompt's size: vLLM from 0.20 states
 * `W - B + 1` ("your prompt contains at least A input tokens", "You passed A input tokens…"), the
 * length it truncated its count at (`vllm/renderers/params.py`).
 */
export function statesLowerBound(overflow: OverflowInfo): boolean {
  const { input, output, window } = overflow;
  return input !== undefined && output !== undefined && window !== undefined && input === window - output + 1;
}

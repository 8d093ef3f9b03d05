/**
 * @module
 * The inputs and the result of `recoverFromOverflow`.
 */
import type { RecallSpan, Summarizer } from '../compact/index.js';
import type { ContextTruncatedError } from '../errors/index.js';
import type { ContextWindowManager } from '../manager/index.js';
import type { OverflowInfo } from '../overflow/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';

/** What recovery did. */
export type RecoveryAction =
  | 'lower_max_tokens'
  | 'lower_output_cap'
  | 'compacted'
  | 'truncated'
  | 'fallback'
  /** Only the estimate says the smallest request cannot fit: it is sent once for the provider to judge. */
  | 'last_try'
  | 'give_up';

/** Inputs of `recoverFromOverflow`. */
export interface RecoverFromOverflowOptions {
  /**
   * The request as the caller built it, whole history included: recovery fits it again. A fitted
   * request works too when `history` carries the whole history.
   */
  request: ChatRequest;
  /** The whole history, when `request` is the fitted request that was sent (the tool loop passes both). */
  history?: Message[];
  /** How the provider's rejection was classified (`classifyOverflow`, or `ProviderError.overflow`). */
  overflow: OverflowInfo;
  manager: ContextWindowManager;
  /** Writes compaction summaries; without it the chain skips the model steps. */
  summarize?: Summarizer;
  signal?: AbortSignal;
  /** The summary request's output cap (default 16,384; never more than half the window). */
  summaryMaxTokens?: number;
}

/** What `recoverFromOverflow` decided. */
export interface RecoveryResult {
  action: RecoveryAction;
  /** The fitted request to send once more (absent on `give_up`). */
  request?: ChatRequest;
  /** Messages of the history that recovery took out: write them to the store (`applyCompaction`). */
  removed: Message[];
  /** What was tried, in order, with each outcome. */
  steps: string[];
  /** On `give_up`: what is wrong and what to change. */
  message?: string;
  /** The history to continue with, when recovery changed it (kept messages are the same objects). */
  messages?: Message[];
  /** The spans behind the placeholders recovery added, for `recall`. */
  recall?: RecallSpan[];
  /** The window the overflow stated (already learned by the manager). */
  window?: number;
  /** On `give_up` for a request nothing can fit: the terminal error, code `context_truncated`. */
  error?: ContextTruncatedError;
}

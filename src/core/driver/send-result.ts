/**
 * @module
 * What one driver send came to: the reply, or why there is none, with what the send changed.
 */
import type { FitResult } from '../manager/index.js';
import type { OverflowInfo } from '../overflow/index.js';
import type { RecoveryResult, RetryRecovery } from '../recovery/index.js';
import type { Message } from '../transcript/index.js';
import type { SendFailureReason } from './retry-policy.js';

/** A change a send made to the history: write it to the store, continue with `after`. */
export interface HistoryChange {
  /** What made it: a recovery step, or the compaction that made room for a cut-off reply. */
  kind: 'compacted' | 'truncated' | 'fallback' | 'exhaustion';
  before: Message[];
  after: Message[];
  /** Messages of `before` that `after` no longer holds. */
  removed: Message[];
}

/** Fields both outcomes share. */
interface SendOutcomeBase {
  /** Changes to the history, in order; empty when none. */
  changes: HistoryChange[];
  /** The history to continue with, when a change was made. */
  history?: Message[];
}

/** A reply. */
export interface DriverSuccess<Response> extends SendOutcomeBase {
  ok: true;
  response: Response;
  /** How the request that got the reply was fitted. */
  fit: FitResult;
  /** Attempts made, the successful one included. */
  attempts: number;
  /** The recovery that made the successful request, if the first was rejected. */
  recovery?: RetryRecovery;
}

/** No reply. */
export interface DriverFailure extends SendOutcomeBase {
  ok: false;
  reason: SendFailureReason;
  /** What is wrong and what to do, for people. */
  message: string;
  /** The transport's error, or the `ContextTruncatedError`. */
  error?: unknown;
  /** The last request fitted, when one was. */
  fit?: FitResult;
  /** The rejection, when it was an overflow. */
  overflow?: OverflowInfo;
  recovery?: RecoveryResult;
}

/** The outcome of `ConversationDriver.send`. */
export type DriverSendResult<Response> = DriverSuccess<Response> | DriverFailure;

/** Optional details of a failure. */
export type SendAttempt = Pick<DriverFailure, 'fit' | 'overflow' | 'recovery'>;

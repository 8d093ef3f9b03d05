/**
 * @module
 * The send path every surface drives: one {@link ConversationDriver} per conversation fits, sends
 * through a transport, classifies, recovers once, retries by class and learns from usage.
 */
export {
  ConversationDriver,
  type ConversationDriverOptions,
  type DriverSendOptions,
  type DriverState,
  type MeasureRequest,
} from './conversation-driver.js';
export type { DriverEvent, SpillwayEvent } from './driver-events.js';
export {
  EXHAUSTION_COMPACT_RATIO,
  EXHAUSTION_RATIO,
  exhaustionNote,
  invalidToolCall,
  isExhausted,
  reasoningFilled,
} from './exhaustion.js';
export {
  applyHistoryPrefix,
  type HashText,
  type HistoryPrefix,
  hashMessages,
  parseHistoryPrefix,
  prefixFromCompaction,
} from './history-prefix.js';
export {
  type AttemptDecision,
  type AttemptObservation,
  type AttemptState,
  DEFAULT_RETRY_POLICY,
  initialAttemptState,
  nextAttempt,
  type RetryPolicy,
  type RetryReason,
  type SendFailureReason,
} from './retry-policy.js';
export type { DriverFailure, DriverSendResult, DriverSuccess, HistoryChange } from './send-result.js';
export type {
  FinishReason,
  ProviderAnswer,
  Transport,
  TransportError,
  TransportFailure,
  TransportResult,
  TransportSendOptions,
  TransportSuccess,
} from './transport.js';

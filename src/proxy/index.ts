/**
 * @module
 * `spillway/proxy`: an OpenAI-compatible HTTP proxy that makes any client overflow-proof. Every chat
 * request is fitted to the upstream model's window before it goes upstream, upstream overflows are
 * recovered and retried once, and state that must outlive a request (learned limits, calibration,
 * sticky conversation state) lives in a memory, SQLite or Redis store.
 *
 * @example
 * import { startProxy } from 'spillway/proxy';
 * const proxy = await startProxy({ upstream: 'http://localhost:8000', store: 'redis://127.0.0.1:6379' });
 * // point any OpenAI client at `${proxy.url}/v1`
 */

export { conversationKey, hashMessages } from './conversation-key.js';
export {
  ANONYMOUS_CREDENTIAL,
  LEARNED_LIMITS_TTL_SECONDS,
  MAX_SHARED_STEP,
} from './learned-limits-record.js';
export { conversationStateOf, openConversationDriver } from './open-conversation-driver.js';
export { openProxyStore } from './open-proxy-store.js';
export { matchOverflow, type OverflowEvidence, type SentAttempt } from './overflow-evidence.js';
export {
  checkOwnerProof,
  OWNER_CHALLENGE_HEADER,
  OWNER_PROOF_HEADER,
  ownerProof,
} from './owner-proof.js';
export { type ProxyErrorInfo, proxyErrorBody } from './proxy-error-body.js';
export { LATENCY_BUCKETS, ProxyMetrics } from './proxy-metrics.js';
export type { ProxyLogEntry } from './proxy-runtime.js';
export {
  CALIBRATION_TTL_SECONDS,
  CONVERSATION_TTL_SECONDS,
  type ConversationState,
  type LearnedLimitsObservation,
  type LearnedModelLimits,
  PROXY_KEY_PREFIX,
  ProxyState,
  upstreamScope,
} from './proxy-state.js';
export {
  createMemoryProxyStore,
  DEFAULT_MEMORY_STORE_MAX_CHARS,
  DEFAULT_MEMORY_STORE_MAX_ENTRIES,
  type MemoryProxyStore,
  type MemoryProxyStoreOptions,
  type ProxyStore,
  type ProxyStoreSetOptions,
  STORE_SWEEP_INTERVAL_MS,
} from './proxy-store.js';
export { DEFAULT_MAX_BODY_BYTES } from './read-request-body.js';
export { CREDENTIAL_HEADERS, redactSecrets, secretsOf } from './redact-secrets.js';
export { createRedisProxyStore, REDIS_COMMAND_TIMEOUT_MS } from './redis-proxy-store.js';
export { MAX_HOLDBACK_BYTES } from './relay-stream.js';
export {
  type ResolveUpstreamLimitsOptions,
  resolveUpstreamLimits,
  type UpstreamLimits,
} from './resolve-upstream-limits.js';
export { sha256 } from './sha256.js';
export { createSqliteProxyStore, defaultProxyStorePath } from './sqlite-proxy-store.js';
export { DEFAULT_PROXY_PORT, type ProxyOptions, type RunningProxy, startProxy } from './start-proxy.js';
export {
  type CircuitBreakerOptions,
  type CircuitState,
  type GuardedProxyStore,
  isCircuitOpenError,
  STORE_FAILURES_TO_OPEN,
  STORE_RETRY_AFTER_MS,
  withCircuitBreaker,
} from './store-circuit-breaker.js';
export { createUpstreamSummarizer } from './upstream-summarizer.js';
export {
  DEFAULT_UPSTREAM_TIMEOUTS,
  TIMEOUT_SETTINGS,
  type UpstreamTimeoutFacts,
  type UpstreamTimeoutName,
  type UpstreamTimeouts,
  upstreamTimeoutOf,
} from './upstream-timeouts.js';

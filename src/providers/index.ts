/**
 * @module
 * Provider clients: OpenAI-compatible Chat Completions and Anthropic Messages over `fetch`, both
 * streaming (SSE parsed by eventsource-parser), with the official SDKs' retry rules and every error
 * classified for overflow.
 */
export { ANTHROPIC_VERSION, type AnthropicClientOptions, createAnthropicClient } from './anthropic-client.js';
export {
  DEFAULT_FIRST_CHUNK_TIMEOUT_MS,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type StreamTimeouts,
} from './http.js';
export {
  isRetryableFailure,
  parseDuration,
  type RetryOptions,
  retryDelayMs,
  serverDelayMs,
} from './http-retry.js';
export type {
  FinishReason,
  ModelClient,
  ModelResponse,
  ModelUsage,
  SendOptions,
  StreamEvent,
} from './model-client.js';
export {
  createOpenAICompatibleClient,
  type OpenAICompatibleClientOptions,
} from './openai-compatible-client.js';
export {
  ProviderError,
  type ProviderErrorDetails,
  type ProviderFailure,
  safeHeaders,
} from './provider-error.js';
export { type RetryNotice, withRetries } from './with-retries.js';

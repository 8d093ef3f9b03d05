/**
 * @module
 * The `ModelClient` interface: one provider send, streaming or not, with usage and the raw error.
 */
import type { AssistantMessage, ChatRequest, OverflowInfo, ProviderAnswer } from '../core/index.js';

/** Token counts a provider reported for one request. */
export interface ModelUsage {
  /** Prompt tokens, cached ones included (Anthropic's `input_tokens` plus its cache reads and writes). */
  promptTokens: number;
  completionTokens: number;
  /** Completion tokens spent on reasoning, when the provider says. */
  reasoningTokens?: number;
  /** Prompt tokens read from the provider's prompt cache, when it says (part of `promptTokens`). */
  cachedTokens?: number;
  /** Prompt tokens written to the prompt cache (Anthropic's `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
}

/** Why the reply ended, normalized. `length`: it hit `max_tokens` or the window. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'context_window' | 'other';

/** A completed reply. */
export interface ModelResponse {
  message: AssistantMessage;
  finishReason: FinishReason;
  /** The provider's own finish reason, verbatim. */
  rawFinishReason?: string;
  usage?: ModelUsage;
  status: number;
  headers: Record<string, string>;
  /** The response body (non-streaming) or the last event's data (streaming). */
  raw: unknown;
}

/** What a streaming send reports as it goes. */
export type StreamEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'usage'; usage: ModelUsage };

/** Options of one send. */
export interface SendOptions {
  signal?: AbortSignal;
  /** Stream the reply; deltas go to `onEvent`, the promise still resolves with the whole reply. */
  stream?: boolean;
  onEvent?: (event: StreamEvent) => void;
  /**
   * Classifies an error answer (the driver hands its own, with the caller's overflow rows); without
   * it the catalog's classification. The `ProviderError` carries what it returns.
   */
  classify?: (answer: ProviderAnswer) => OverflowInfo;
}

/**
 * Sends one normalized request to a provider. Rejects with a `ProviderError` carrying the status,
 * headers (auth removed) and body, and the overflow classification of the error.
 */
export interface ModelClient {
  /** The wire format the client speaks. */
  readonly format: 'openai' | 'anthropic';
  /** The base URL, for discovery and logs. */
  readonly baseUrl: string;
  send(request: ChatRequest, options?: SendOptions): Promise<ModelResponse>;
}

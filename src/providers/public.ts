/**
 * @module
 * `spillway/providers`: clients for OpenAI-compatible Chat Completions servers and the Anthropic
 * Messages API over `fetch`, streaming, with the official SDKs' retry rules and every failure a
 * `ProviderError` with its status, headers and body.
 *
 * @example
 * import { createOpenAICompatibleClient } from 'spillway/providers';
 * const client = createOpenAICompatibleClient({ baseUrl: 'http://localhost:8000/v1' });
 */
export {
  type AnthropicClientOptions,
  createAnthropicClient,
  createOpenAICompatibleClient,
  type ModelClient,
  type ModelResponse,
  type OpenAICompatibleClientOptions,
  ProviderError,
} from './index.js';

/**
 * @module
 * The chat's model client: OpenAI-compatible or Anthropic, with the API key from the config or the
 * environment, and the user's overflow rows applied to every error the provider sends.
 */
import { classifyOverflow, type OverflowPattern } from '../core/index.js';
import {
  createAnthropicClient,
  createOpenAICompatibleClient,
  type ModelClient,
  type StreamTimeouts,
} from '../providers/index.js';
import { copyProviderError, rewriteProviderErrors } from './copy-provider-error.js';

/** Where `--base-url` points when neither the flag nor the config gives one. */
export const DEFAULT_BASE_URLS = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
} as const;

/** The wire format a base URL most likely speaks: Anthropic's own host, else Chat Completions. */
export function formatForBaseUrl(baseUrl: string | undefined): 'openai' | 'anthropic' {
  if (baseUrl === undefined) return 'openai';
  try {
    return new URL(baseUrl).hostname === 'api.anthropic.com' ? 'anthropic' : 'openai';
  } catch {
    return 'openai';
  }
}

/**
 * The API key: the config's `api_key` (written for the endpoint the config names), else
 * `SPILLWAY_API_KEY`, else `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` by format. A local server needs none.
 */
export function resolveApiKey({
  format,
  configKey,
  env = process.env,
}: {
  format: 'openai' | 'anthropic';
  configKey?: string;
  env?: NodeJS.ProcessEnv;
}): { apiKey?: string; source: string } {
  if (configKey) return { apiKey: configKey, source: 'config api_key' };
  if (env.SPILLWAY_API_KEY) return { apiKey: env.SPILLWAY_API_KEY, source: 'SPILLWAY_API_KEY' };
  const name = format === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  if (env[name]) return { apiKey: env[name], source: name };
  return { source: 'none' };
}

/**
 * Wraps a client so that its errors are classified with `patterns` before the catalog (the provider
 * clients classify with the catalog alone). Without patterns the client is returned as is.
 */
export function withOverflowPatterns(client: ModelClient, patterns: readonly OverflowPattern[]): ModelClient {
  if (patterns.length === 0) return client;
  return rewriteProviderErrors(client, (error) => {
    if (error.body === undefined || (error.failure !== 'http' && error.failure !== 'stream_error'))
      return undefined;
    const overflow = classifyOverflow({
      ...(error.status === undefined ? {} : { status: error.status }),
      body: error.body,
      patterns: [...patterns],
    });
    return overflow.pattern === error.overflow.pattern ? undefined : copyProviderError(error, { overflow });
  });
}

/** Options of {@link createChatClient}. */
export interface CreateChatClientOptions {
  format: 'openai' | 'anthropic';
  baseUrl: string;
  apiKey?: string;
  overflowPatterns?: readonly OverflowPattern[];
  fetch?: typeof fetch;
  /** How long a streamed reply may go silent (the config's stream timeouts). */
  streamTimeouts?: StreamTimeouts;
}

/**
 * The client `spillway chat` talks through.
 *
 * @example
 * const client = createChatClient({ format: 'openai', baseUrl: 'http://127.0.0.1:8000/v1' });
 */
export function createChatClient({
  format,
  baseUrl,
  apiKey,
  overflowPatterns = [],
  fetch: fetchImpl,
  streamTimeouts,
}: CreateChatClientOptions): ModelClient {
  const common = {
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...(streamTimeouts ? { streamTimeouts } : {}),
  };
  const client =
    format === 'anthropic' ? createAnthropicClient(common) : createOpenAICompatibleClient(common);
  return withOverflowPatterns(client, overflowPatterns);
}

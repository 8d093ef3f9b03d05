import {
  createAnthropicClient,
  createOpenAICompatibleClient,
  type ModelClient,
  type StreamTimeouts,
} from '../providers/index.js';

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

/** Options of {@link createChatClient}. */
export interface CreateChatClientOptions {
  format: 'openai' | 'anthropic';
  baseUrl: string;
  apiKey?: string;
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
  fetch: fetchImpl,
  streamTimeouts,
}: CreateChatClientOptions): ModelClient {
  const common = {
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...(streamTimeouts ? { streamTimeouts } : {}),
  };
  // Overflow rows of the config are the driver's to apply: it classifies every answer, once.
  return format === 'anthropic' ? createAnthropicClient(common) : createOpenAICompatibleClient(common);
}

/**
 * @module
 * Errors a chat user can act on: a missing API key for a hosted API is reported before anything is
 * sent (not as the network error a refused request becomes), a key the server refuses names where
 * it came from, and a 404 says which `--format` or `--base-url` to use.
 */
import { SpillwayError } from '../core/index.js';
import type { ModelClient, ProviderError } from '../providers/index.js';
import { copyProviderError, rewriteProviderErrors } from './copy-provider-error.js';

/** Hosts that never answer without a key: the default base URLs. */
const HOSTED_APIS: Record<string, { format: 'openai' | 'anthropic'; variable: string }> = {
  'api.openai.com': { format: 'openai', variable: 'OPENAI_API_KEY' },
  'api.anthropic.com': { format: 'anthropic', variable: 'ANTHROPIC_API_KEY' },
};

/** The environment variables a key is read from, for messages. */
function keyVariables(format: 'openai' | 'anthropic'): string {
  return `${format === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'} (or SPILLWAY_API_KEY, or "api_key" in spillway.config.json)`;
}

function hostOf(baseUrl: string): string | undefined {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Throws `invalid_config` when the base URL is a hosted API that needs a key and none was found.
 * A server on another host (a local vLLM, llama.cpp, Ollama) may need none, so it is let through.
 *
 * @example
 * requireApiKey({ baseUrl: 'https://api.openai.com/v1', format: 'openai', apiKey: undefined }); // throws
 */
export function requireApiKey({
  baseUrl,
  format,
  apiKey,
}: {
  baseUrl: string;
  format: 'openai' | 'anthropic';
  apiKey?: string;
}): void {
  if (apiKey) return;
  const host = hostOf(baseUrl);
  if (host === undefined || HOSTED_APIS[host] === undefined) return;
  throw new SpillwayError(
    'invalid_config',
    `no API key for ${baseUrl}: set ${keyVariables(format)}; a local server (--base-url http://127.0.0.1:8000/v1) needs none`,
    { data: { reason: 'missing_api_key', baseUrl } },
  );
}

/** The provider's own message from an error body (OpenAI, Anthropic and vLLM envelopes), if any. */
function bodyMessage(body: string | undefined): string | undefined {
  try {
    const value = JSON.parse(body ?? '') as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof value.error === 'object' ? value.error?.message : (value.error ?? value.message ?? undefined);
    return typeof message === 'string' && message !== '' ? message : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an error body is in Anthropic's envelope (`{"type":"error","error":{"type":…}}`). */
function anthropicEnvelope(body: string | undefined): boolean {
  try {
    const value = JSON.parse(body ?? '') as { type?: unknown; error?: { type?: unknown } };
    return value.type === 'error' && typeof value.error?.type === 'string';
  } catch {
    return false;
  }
}

/** The message a chat shows for an HTTP error it can explain, or `undefined` to keep the original. */
export function explainHttpError({
  error,
  format,
  baseUrl,
  keySource,
}: {
  error: ProviderError;
  format: 'openai' | 'anthropic';
  baseUrl: string;
  keySource: string;
}): string | undefined {
  if (error.failure !== 'http') return undefined;
  const said = bodyMessage(error.body);
  const answer = `${baseUrl} answered HTTP ${error.status}${said ? ` (${said})` : ''}`;
  if (error.status === 401 || error.status === 403)
    return keySource === 'none'
      ? `${answer}: it wants an API key and none was sent; set ${keyVariables(format)}`
      : `${answer}: it refused the API key from ${keySource}; check that key, or set another in ${keyVariables(format)}`;
  if (error.status !== 404) return undefined;
  if (format === 'openai' && anthropicEnvelope(error.body))
    return `${answer}: this is an Anthropic Messages API, which has no /chat/completions; use --format anthropic (or "format": "anthropic" in the config)`;
  if (format === 'anthropic' && !anthropicEnvelope(error.body))
    return `${answer}: this server has no Anthropic /v1/messages; if it is OpenAI-compatible, use --format openai with a --base-url that ends in /v1`;
  return `${answer}: check --base-url (OpenAI-compatible servers usually end in /v1) and --model`;
}

/**
 * Wraps the chat's client so that the errors {@link explainHttpError} knows come with what to do.
 *
 * @example
 * const client = withErrorHints(createChatClient(options), { format, baseUrl, keySource: 'OPENAI_API_KEY' });
 */
export function withErrorHints(
  client: ModelClient,
  options: { format: 'openai' | 'anthropic'; baseUrl: string; keySource: string },
): ModelClient {
  return rewriteProviderErrors(client, (error) => {
    if (error.overflow.kind !== 'none') return undefined;
    const message = explainHttpError({ error, ...options });
    return message === undefined ? undefined : copyProviderError(error, { message });
  });
}

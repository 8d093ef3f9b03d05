/**
 * @module
 * `withSpillway` for the `openai` SDK (v6): `chat.completions.create`, streaming or not, fitted to
 * the window and recovered from overflows.
 */
import type OpenAI from 'openai';
import { APIPromise } from 'openai/core/api-promise';
import { fromOpenAIChat, toOpenAIChat, type UsageReport } from '../../core/index.js';
import type { SpillwayAdapterOptions } from '../shared/adapter-options.js';
import { AdapterSession } from '../shared/adapter-session.js';
import { type SdkApiPromiseClass, type SdkCreate, wrapSdkCreate } from '../shared/wrap-sdk-create.js';

/** Options of the OpenAI {@link withSpillway}. */
export interface OpenAISpillwayOptions extends SpillwayAdapterOptions {
  /**
   * Where the reply cap Spillway fills in goes when a request sets neither field. Default:
   * `max_completion_tokens` on api.openai.com (its reasoning models reject `max_tokens`),
   * `max_tokens` elsewhere (vLLM, llama.cpp, LiteLLM… all read it).
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

/**
 * Returns a copy of an `openai` client whose `chat.completions.create` fits every request to the
 * model's window (whole turns pruned, tool calls kept with their results, `max_tokens` clamped),
 * feeds the reported usage back for calibration, and on an overflow error (an `APIError` whose
 * `status` and `error` `classifyOverflow` recognizes) recovers and retries once. Streaming and
 * non-streaming calls, and the helpers built on `create` (`parse`, `stream`, `runTools`), go the
 * same way and still return the SDK's `APIPromise`. The client passed in is left as it was.
 *
 * Limits come from the catalog by model id (provider `openai` when the client talks to
 * api.openai.com), overridable with `contextLength` / `outputCap`. Streaming usage is observed when
 * the request asks for it (`stream_options: { include_usage: true }`).
 *
 * @example
 * import OpenAI from 'openai';
 * import { withSpillway } from 'spillway/openai';
 *
 * const client = withSpillway(new OpenAI(), { onEvent: (event) => console.error(event.type) });
 * const completion = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
 */
export function withSpillway<Client extends OpenAI>(
  client: Client,
  options: OpenAISpillwayOptions = {},
): Client {
  const wrapped = client.withOptions({}) as Client;
  const completions = wrapped.chat.completions;
  const official = isOpenAIHost(wrapped.baseURL);
  const field = options.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens');
  const create = wrapSdkCreate({
    session: new AdapterSession(options, 'openai'),
    client: wrapped,
    APIPromise: APIPromise as unknown as SdkApiPromiseClass,
    create: completions.create.bind(completions) as unknown as SdkCreate,
    read: (body) => {
      const request = fromOpenAIChat(body);
      request.maxTokensField ??= field;
      return request;
    },
    write: toOpenAIChat,
    usageOf: (data) => usageOf((data as { usage?: unknown } | undefined)?.usage),
    eventUsageOf: (chunk) => usageOf((chunk as { usage?: unknown } | undefined)?.usage),
    textOf: (data) => {
      const content = (data as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message
        ?.content;
      return typeof content === 'string' ? content : '';
    },
    ...(official ? { provider: 'openai' } : {}),
  });
  Object.defineProperty(completions, 'create', { value: create, configurable: true, writable: true });
  return wrapped;
}

function usageOf(usage: unknown): UsageReport | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const { prompt_tokens: prompt, completion_tokens: completion } = usage as Record<string, unknown>;
  if (typeof prompt !== 'number') return undefined;
  return typeof completion === 'number'
    ? { promptTokens: prompt, completionTokens: completion }
    : { promptTokens: prompt };
}

function isOpenAIHost(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * @module
 * `withSpillway` for `@anthropic-ai/sdk`: `messages.create` and `messages.stream` fitted to the
 * window and recovered from overflows.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { APIPromise } from '@anthropic-ai/sdk/core/api-promise';
import { fromAnthropic, toAnthropic, type UsageReport } from '../../core/index.js';
import type { SpillwayAdapterOptions } from '../shared/adapter-options.js';
import { AdapterSession } from '../shared/adapter-session.js';
import { type SdkApiPromiseClass, type SdkCreate, wrapSdkCreate } from '../shared/wrap-sdk-create.js';

/** Options of the Anthropic {@link withSpillway}. */
export type AnthropicSpillwayOptions = SpillwayAdapterOptions;

/**
 * Returns a copy of an `@anthropic-ai/sdk` client whose `messages.create` fits every request to the
 * model's window (whole turns pruned, `tool_use` kept with its `tool_result`, thinking blocks and
 * their signatures untouched), feeds the reported usage (input plus cache tokens) back for
 * calibration, and on an overflow error (an `APIError` whose `status` and `error`
 * `classifyOverflow` recognizes) recovers and retries once. `messages.stream` goes through the same
 * `create`, so its `MessageStream` (events, `finalMessage()`, `withResponse()`) works as before.
 * The client passed in is left as it was; `beta.messages` is not wrapped.
 *
 * Limits come from the catalog by model id (provider `anthropic` when the client talks to
 * api.anthropic.com), overridable with `contextLength` / `outputCap`.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk';
 * import { withSpillway } from 'spillway/anthropic';
 *
 * const client = withSpillway(new Anthropic());
 * const message = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 4_096, messages, tools });
 */
export function withSpillway<Client extends Anthropic>(
  client: Client,
  options: AnthropicSpillwayOptions = {},
): Client {
  const wrapped = client.withOptions({}) as Client;
  const messages = wrapped.messages;
  const official = isAnthropicHost(wrapped.baseURL);
  const create = wrapSdkCreate({
    session: new AdapterSession(options, 'anthropic'),
    client: wrapped,
    APIPromise: APIPromise as unknown as SdkApiPromiseClass,
    create: messages.create.bind(messages) as unknown as SdkCreate,
    read: fromAnthropic,
    write: toAnthropic,
    usageOf: (data) => usageOf((data as { usage?: unknown } | undefined)?.usage),
    // message_start carries the prompt's count; later events only add output tokens.
    eventUsageOf: (event) => {
      const value = event as { type?: unknown; message?: { usage?: unknown } } | undefined;
      return value?.type === 'message_start' ? usageOf(value.message?.usage) : undefined;
    },
    textOf: (data) => {
      const content = (data as { content?: unknown }).content;
      if (!Array.isArray(content)) return '';
      return content
        .filter((block): block is { type: 'text'; text: string } => block?.type === 'text')
        .map((block) => block.text)
        .join('');
    },
    ...(official ? { provider: 'anthropic' } : {}),
  });
  Object.defineProperty(messages, 'create', { value: create, configurable: true, writable: true });
  return wrapped;
}

/** Prompt tokens as the window sees them: input plus cache writes and cache reads. */
function usageOf(usage: unknown): UsageReport | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  if (typeof record.input_tokens !== 'number') return undefined;
  const count = (value: unknown) => (typeof value === 'number' ? value : 0);
  const promptTokens =
    record.input_tokens + count(record.cache_creation_input_tokens) + count(record.cache_read_input_tokens);
  return typeof record.output_tokens === 'number'
    ? { promptTokens, completionTokens: record.output_tokens }
    : { promptTokens };
}

function isAnthropicHost(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.anthropic.com';
  } catch {
    return false;
  }
}

import {
  type AssistantMessage,
  type ChatRequest,
  type ContentPart,
  readAnthropicAssistant,
  type ToolCall,
  toAnthropic,
} from '../core/index.js';
import {
  checkStreamTimeouts,
  eventJson,
  postJson,
  readEvents,
  responseJson,
  type StreamTimeouts,
} from './http.js';
import type { RetryOptions } from './http-retry.js';
import type { FinishReason, ModelClient, ModelResponse, ModelUsage, SendOptions } from './model-client.js';
import { ProviderError, safeHeaders } from './provider-error.js';
import { type RetryNotice, withRetries } from './with-retries.js';

/** The API version header every Messages request carries. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Options of {@link createAnthropicClient}. */
export interface AnthropicClientOptions {
  /** The API root without `/v1` (`https://api.anthropic.com`). */
  baseUrl?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  retry?: RetryOptions;
  onRetry?: (notice: RetryNotice) => void;
  fetch?: typeof fetch;
  /** How long a streamed reply may go silent (see `readEvents`); a stuck stream then fails. */
  streamTimeouts?: StreamTimeouts;
}

/**
 * A client for the Anthropic Messages API, streaming with Anthropic's SSE events (`message_start`,
 * `content_block_*`, `message_delta`, `message_stop`, `error`). Usage counts cache reads and writes
 * as prompt tokens, since they occupy the window like any other.
 *
 * @example
 * const client = createAnthropicClient({ apiKey: process.env.ANTHROPIC_API_KEY });
 */
export function createAnthropicClient({
  baseUrl = 'https://api.anthropic.com',
  apiKey,
  headers = {},
  retry,
  onRetry,
  fetch: fetchImpl,
  streamTimeouts,
}: AnthropicClientOptions = {}): ModelClient {
  checkStreamTimeouts(streamTimeouts);
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const auth: Record<string, string> = {
    'anthropic-version': ANTHROPIC_VERSION,
    ...(apiKey ? { 'x-api-key': apiKey } : {}),
  };
  return {
    format: 'anthropic',
    baseUrl: root,
    send(request: ChatRequest, options: SendOptions = {}): Promise<ModelResponse> {
      const body = toAnthropic(request);
      if (options.stream) body.stream = true;
      else delete body.stream;
      const attempt = async () => {
        const response = await postJson({
          url: `${root}/v1/messages`,
          headers: { ...auth, ...headers },
          body,
          signal: options.signal,
          fetch: fetchImpl,
          ...(options.classify ? { classify: options.classify } : {}),
        });
        return options.stream ? readStream(response, options, streamTimeouts) : readJson(response, options);
      };
      return withRetries(attempt, { ...retry, signal: options.signal, onRetry });
    },
  };
}

async function readJson(response: Response, { classify }: SendOptions): Promise<ModelResponse> {
  const status = response.status;
  const body = await responseJson(response);
  if (body.type === 'error')
    throw new ProviderError(
      `the provider answered 200 with an error: ${JSON.stringify(body.error).slice(0, 300)}`,
      { failure: 'stream_error', status, body: JSON.stringify(body), ...(classify ? { classify } : {}) },
    );
  if (!Array.isArray(body.content))
    throw new ProviderError('the provider answered without "content"', {
      failure: 'malformed_response',
      status,
      body: JSON.stringify(body).slice(0, 2_000),
    });
  const result: ModelResponse = {
    message: readAnthropicAssistant(body.content),
    finishReason: finishOf(body.stop_reason),
    status,
    headers: safeHeaders(response.headers),
    raw: body,
  };
  if (typeof body.stop_reason === 'string') result.rawFinishReason = body.stop_reason;
  const usage = usageOf(body.usage);
  if (usage) result.usage = usage;
  return result;
}

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'tool'; id: string; name: string; json: string }
  | { kind: 'other'; value: unknown };

async function readStream(
  response: Response,
  { signal, onEvent, classify }: SendOptions,
  timeouts: StreamTimeouts | undefined,
): Promise<ModelResponse> {
  const status = response.status;
  const blocks: Block[] = [];
  let inputUsage: Record<string, unknown> = {};
  let outputTokens = 0;
  let stop: string | undefined;
  let stopped = false;
  let last: unknown;
  for await (const event of readEvents(response, signal, timeouts)) {
    const data = eventJson(event, status);
    last = data;
    const type = (data.type as string | undefined) ?? event.event;
    if (type === 'error')
      throw new ProviderError(
        `the provider sent an error in the stream: ${JSON.stringify(data.error ?? data).slice(0, 300)}`,
        { failure: 'stream_error', status, body: event.data, ...(classify ? { classify } : {}) },
      );
    if (type === 'message_start') {
      inputUsage = ((data.message as Record<string, unknown> | undefined)?.usage ?? {}) as Record<
        string,
        unknown
      >;
    } else if (type === 'content_block_start') {
      const block = (data.content_block ?? {}) as Record<string, unknown>;
      const index = data.index as number;
      if (block.type === 'text')
        blocks[index] = { kind: 'text', text: (block.text as string | undefined) ?? '' };
      else if (block.type === 'thinking')
        blocks[index] = {
          kind: 'thinking',
          text: (block.thinking as string | undefined) ?? '',
          signature: (block.signature as string | undefined) ?? '',
        };
      else if (block.type === 'tool_use')
        blocks[index] = { kind: 'tool', id: block.id as string, name: block.name as string, json: '' };
      else blocks[index] = { kind: 'other', value: block };
    } else if (type === 'content_block_delta') {
      const block = blocks[data.index as number];
      const delta = (data.delta ?? {}) as Record<string, unknown>;
      if (delta.type === 'text_delta' && block?.kind === 'text') {
        block.text += delta.text as string;
        onEvent?.({ type: 'text-delta', text: delta.text as string });
      } else if (delta.type === 'thinking_delta' && block?.kind === 'thinking') {
        block.text += delta.thinking as string;
        onEvent?.({ type: 'reasoning-delta', text: delta.thinking as string });
      } else if (delta.type === 'signature_delta' && block?.kind === 'thinking') {
        block.signature += delta.signature as string;
      } else if (delta.type === 'input_json_delta' && block?.kind === 'tool') {
        block.json += delta.partial_json as string;
        onEvent?.({
          type: 'tool-call-delta',
          index: data.index as number,
          id: block.id,
          name: block.name,
          argumentsDelta: delta.partial_json as string,
        });
      }
    } else if (type === 'message_delta') {
      const delta = (data.delta ?? {}) as Record<string, unknown>;
      if (typeof delta.stop_reason === 'string') stop = delta.stop_reason;
      const usage = (data.usage ?? {}) as Record<string, unknown>;
      if (typeof usage.output_tokens === 'number') outputTokens = usage.output_tokens;
    } else if (type === 'message_stop') {
      stopped = true;
      break;
    }
  }
  if (!stopped)
    throw new ProviderError('the stream ended before the reply finished', {
      failure: 'stream_interrupted',
      status,
    });
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of blocks) {
    if (!block) continue;
    if (block.kind === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.kind === 'thinking')
      parts.push({
        type: 'reasoning',
        text: block.text,
        ...(block.signature ? { extra: { signature: block.signature } } : {}),
      });
    else if (block.kind === 'tool')
      toolCalls.push({ id: block.id, name: block.name, arguments: block.json === '' ? '{}' : block.json });
    else parts.push({ type: 'opaque', value: block.value });
  }
  const message: AssistantMessage = { role: 'assistant', content: parts };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  const result: ModelResponse = {
    message,
    finishReason: finishOf(stop),
    status,
    headers: safeHeaders(response.headers),
    raw: last,
  };
  if (stop !== undefined) result.rawFinishReason = stop;
  const usage = usageOf({ ...inputUsage, output_tokens: outputTokens });
  if (usage) {
    result.usage = usage;
    onEvent?.({ type: 'usage', usage });
  }
  return result;
}

/** Anthropic usage: the window holds `input_tokens` plus cache reads and cache writes. */
export function usageOf(value: unknown): ModelUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const usage = value as Record<string, unknown>;
  if (typeof usage.input_tokens !== 'number') return undefined;
  const read = typeof usage.cache_read_input_tokens === 'number' ? usage.cache_read_input_tokens : undefined;
  const written =
    typeof usage.cache_creation_input_tokens === 'number' ? usage.cache_creation_input_tokens : undefined;
  return {
    promptTokens: usage.input_tokens + (read ?? 0) + (written ?? 0),
    completionTokens: typeof usage.output_tokens === 'number' ? usage.output_tokens : 0,
    ...(read === undefined ? {} : { cachedTokens: read }),
    ...(written === undefined ? {} : { cacheWriteTokens: written }),
  };
}

function finishOf(reason: unknown): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case 'model_context_window_exceeded':
      return 'context_window';
    default:
      return 'other';
  }
}

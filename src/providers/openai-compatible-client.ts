import {
  type AssistantMessage,
  type ChatRequest,
  readOpenAIMessage,
  SpillwayError,
  type ToolCall,
  toOpenAIChat,
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

/** Options of {@link createOpenAICompatibleClient}. */
export interface OpenAICompatibleClientOptions {
  /** The API root, ending in `/v1` for most servers (`http://localhost:8000/v1`). */
  baseUrl: string;
  apiKey?: string;
  /** Sent with every request (after the auth header, so they can override it). */
  headers?: Record<string, string>;
  retry?: RetryOptions;
  onRetry?: (notice: RetryNotice) => void;
  fetch?: typeof fetch;
  /** How long a streamed reply may go silent (see `readEvents`); a stuck stream then fails. */
  streamTimeouts?: StreamTimeouts;
}

/**
 * A client for OpenAI-compatible Chat Completions servers: OpenAI, vLLM, llama.cpp, LocalAI, Ollama,
 * LM Studio, LiteLLM, OpenRouter… Streaming uses SSE with `stream_options.include_usage`, so the
 * reply's usage arrives with it. Errors, including errors sent inside a 200 stream, reject with a
 * classified `ProviderError`.
 *
 * @example
 * const client = createOpenAICompatibleClient({ baseUrl: 'http://127.0.0.1:8000/v1' });
 * const { message, usage } = await client.send(request, { stream: true, onEvent: print });
 */
export function createOpenAICompatibleClient({
  baseUrl,
  apiKey,
  headers = {},
  retry,
  onRetry,
  fetch: fetchImpl,
  streamTimeouts,
}: OpenAICompatibleClientOptions): ModelClient {
  checkStreamTimeouts(streamTimeouts);
  const root = baseUrl.replace(/\/+$/, '');
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  return {
    format: 'openai',
    baseUrl: root,
    send(request: ChatRequest, options: SendOptions = {}): Promise<ModelResponse> {
      const body = toOpenAIChat(request);
      if (options.stream) {
        body.stream = true;
        body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
      } else {
        delete body.stream;
        delete body.stream_options;
      }
      const attempt = async () => {
        const response = await postJson({
          url: `${root}/chat/completions`,
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
  if (body.error !== undefined) {
    throw new ProviderError(
      `the provider answered 200 with an error: ${JSON.stringify(body.error).slice(0, 300)}`,
      { failure: 'stream_error', status, body: JSON.stringify(body), ...(classify ? { classify } : {}) },
    );
  }
  const choice = (body.choices as Array<Record<string, unknown>> | undefined)?.[0];
  if (!choice || typeof choice.message !== 'object') {
    throw new ProviderError('the provider answered without choices[0].message', {
      failure: 'malformed_response',
      status,
      body: JSON.stringify(body).slice(0, 2_000),
    });
  }
  const message = assistantOf(readOpenAIMessage({ ...(choice.message as object), role: 'assistant' }));
  const result: ModelResponse = {
    message,
    finishReason: finishOf(choice.finish_reason),
    status,
    headers: safeHeaders(response.headers),
    raw: body,
  };
  if (typeof choice.finish_reason === 'string') result.rawFinishReason = choice.finish_reason;
  const usage = usageOf(body.usage);
  if (usage) result.usage = usage;
  return result;
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

async function readStream(
  response: Response,
  { signal, onEvent, classify }: SendOptions,
  timeouts: StreamTimeouts | undefined,
): Promise<ModelResponse> {
  const status = response.status;
  let text = '';
  let reasoning = '';
  let reasoningKey = 'reasoning_content';
  const calls: PartialCall[] = [];
  let finish: string | undefined;
  let usage: ModelUsage | undefined;
  let done = false;
  let last: unknown;
  for await (const event of readEvents(response, signal, timeouts)) {
    if (event.data === '[DONE]') {
      done = true;
      break;
    }
    const data = eventJson(event, status);
    last = data;
    if (data.error !== undefined || event.event === 'error') {
      throw new ProviderError(
        `the provider sent an error in the stream: ${JSON.stringify(data.error ?? data).slice(0, 300)}`,
        { failure: 'stream_error', status, body: event.data, ...(classify ? { classify } : {}) },
      );
    }
    const chunkUsage = usageOf(data.usage);
    if (chunkUsage) {
      usage = chunkUsage;
      onEvent?.({ type: 'usage', usage });
    }
    const choice = (data.choices as Array<Record<string, unknown>> | undefined)?.[0];
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Record<string, unknown>;
    if (typeof delta.content === 'string' && delta.content !== '') {
      text += delta.content;
      onEvent?.({ type: 'text-delta', text: delta.content });
    }
    const thought =
      typeof delta.reasoning_content === 'string'
        ? delta.reasoning_content
        : typeof delta.reasoning === 'string'
          ? delta.reasoning
          : '';
    if (thought !== '') {
      if (typeof delta.reasoning === 'string') reasoningKey = 'reasoning';
      reasoning += thought;
      onEvent?.({ type: 'reasoning-delta', text: thought });
    }
    for (const part of (delta.tool_calls as Array<Record<string, unknown>> | undefined) ?? []) {
      const index = typeof part.index === 'number' ? part.index : calls.length;
      const fn = (part.function ?? {}) as Record<string, unknown>;
      let call = calls[index];
      if (!call) {
        call = { id: '', name: '', arguments: '' };
        calls[index] = call;
      }
      if (typeof part.id === 'string' && part.id !== '') call.id = part.id;
      if (typeof fn.name === 'string') call.name += fn.name;
      const argumentsDelta = typeof fn.arguments === 'string' ? fn.arguments : '';
      call.arguments += argumentsDelta;
      onEvent?.({
        type: 'tool-call-delta',
        index,
        ...(typeof part.id === 'string' ? { id: part.id } : {}),
        ...(typeof fn.name === 'string' ? { name: fn.name } : {}),
        argumentsDelta,
      });
    }
    if (typeof choice.finish_reason === 'string') finish = choice.finish_reason;
  }
  // Servers end with [DONE]; some (llama.cpp without include_usage) close right after the finish.
  if (!done && finish === undefined) {
    throw new ProviderError('the stream ended before the reply finished', {
      failure: 'stream_interrupted',
      status,
    });
  }
  // Reasoning stays in the field it came in (`reasoning` or `reasoning_content`), as a non-streaming
  // reply carries it, so both read the same and the text goes back to servers that want it.
  const message: AssistantMessage = { role: 'assistant', content: text };
  if (reasoning !== '') message.extra = { [reasoningKey]: reasoning };
  const toolCalls: ToolCall[] = calls
    .filter((call) => call !== undefined)
    .map((call, index) => ({ id: call.id || `call_${index}`, name: call.name, arguments: call.arguments }));
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  const result: ModelResponse = {
    message,
    finishReason: finishOf(finish),
    status,
    headers: safeHeaders(response.headers),
    raw: last,
  };
  if (finish !== undefined) result.rawFinishReason = finish;
  if (usage) result.usage = usage;
  return result;
}

function assistantOf(message: ReturnType<typeof readOpenAIMessage>): AssistantMessage {
  if (message.role !== 'assistant') throw new SpillwayError('internal', 'expected an assistant message');
  return message;
}

/** OpenAI usage: `prompt_tokens` already includes cached tokens. */
export function usageOf(value: unknown): ModelUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const usage = value as Record<string, unknown>;
  if (typeof usage.prompt_tokens !== 'number') return undefined;
  const result: ModelUsage = {
    promptTokens: usage.prompt_tokens,
    completionTokens: typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0,
  };
  const details = usage.completion_tokens_details as Record<string, unknown> | undefined;
  if (typeof details?.reasoning_tokens === 'number') result.reasoningTokens = details.reasoning_tokens;
  // OpenAI's prompt caching reports the cache hits in `usage.prompt_tokens_details.cached_tokens`.
  const prompt = usage.prompt_tokens_details as Record<string, unknown> | undefined;
  if (typeof prompt?.cached_tokens === 'number') result.cachedTokens = prompt.cached_tokens;
  return result;
}

function finishOf(reason: unknown): FinishReason {
  switch (reason) {
    case 'stop':
    case 'end_turn':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

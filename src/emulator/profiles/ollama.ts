import type { TemplateMessage } from '../chat-template.js';
import { OllamaModels } from './ollama-models.js';
import {
  type Admission,
  type ChatRequestFacts,
  type HttpReply,
  MODEL_CREATED,
  openAIErrorBody,
  type Profile,
  type ProfileOptions,
} from './profile.js';

/** `ollama run qwen2.5:7b`: `num_ctx` 4,096 (Ollama's default), the model trained on 32,768. */
export const OLLAMA_DEFAULTS = {
  model: 'qwen2.5:7b',
  contextLength: 4_096,
  trainedContextLength: 32_768,
} as const;

/** Ollama's `toolBlockStartIndex` (`server/prompt.go`): never start the prompt at an orphaned tool result. */
function toolBlockStart(messages: readonly TemplateMessage[], index: number): number {
  if (index <= 0 || index >= messages.length || messages[index]?.role !== 'tool') return index;
  let start = index;
  while (start > 0 && messages[start - 1]?.role === 'tool') start -= 1;
  const assistant = messages[start - 1];
  return assistant?.role === 'assistant' && (assistant.toolCalls?.length ?? 0) > 0 ? start - 1 : index;
}

/**
 * What Ollama sends when a prompt exceeds `num_ctx`, following `chatPrompt` in `server/prompt.go`:
 * drop messages from the front (keeping every system message and never orphaning a tool result)
 * until the rendered prompt fits, always keeping the last message; if even that is too long, the
 * runner keeps the first `num_keep` tokens and the tail so the prompt is exactly `num_ctx` tokens
 * (log line `truncating input prompt limit=4096 prompt=7268 keep=4 new=4096`). No error, HTTP 200.
 */
export function ollamaTruncate(
  facts: ChatRequestFacts,
  { numCtx, outputLimit }: { numCtx: number; outputLimit: number },
): Admission & { accepted: true } {
  const { messages, tools } = facts.input;
  const countFrom = (start: number): number =>
    facts.count({
      messages: [...messages.slice(0, start).filter((m) => m.role === 'system'), ...messages.slice(start)],
      tools,
    });
  let low = 0;
  let high = Math.max(0, messages.length - 1);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (countFrom(toolBlockStart(messages, middle)) <= numCtx) high = middle;
    else low = middle + 1;
  }
  const start = toolBlockStart(messages, low);
  const rendered = countFrom(start);
  const dropped = messages.slice(0, start).filter((m) => m.role !== 'system').length;
  return {
    accepted: true,
    reportedPromptTokens: Math.min(rendered, numCtx),
    outputLimit,
    note: {
      truncated: true,
      droppedMessages: dropped,
      keptFromMessage: start,
      runnerTruncated: rendered > numCtx,
    },
  };
}

/**
 * Ollama's OpenAI-compatible endpoint. It never rejects a long prompt: it truncates it to the
 * model's `num_ctx` (see {@link ollamaTruncate}) and answers 200, reporting the truncated
 * `prompt_tokens`, so the overflow is visible only in `usage`. The endpoint has no way to set
 * `num_ctx`: an `options` object in the body is ignored, as Ollama's `ChatCompletionRequest`
 * (openai/openai.go) has no such field; a model created with `POST /api/create` and
 * `parameters.num_ctx` runs with it. `POST /api/show` reports `model_info["qwen2.context_length"]`
 * (what the model was trained on) and `parameters` with `num_ctx`; `GET /api/ps` the loaded
 * runners' `context_length`; `GET /api/tags` the models (see `OllamaModels`).
 */
export function ollamaProfile(options: ProfileOptions): Profile {
  const model = options.model ?? OLLAMA_DEFAULTS.model;
  const numCtx = options.contextLength ?? OLLAMA_DEFAULTS.contextLength;
  const error = (status: number, message: string): HttpReply => ({
    status,
    body: openAIErrorBody(
      message,
      status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found_error' : 'api_error',
    ),
  });
  const models = new OllamaModels({
    model,
    numCtx,
    trained: Math.max(OLLAMA_DEFAULTS.trainedContextLength, numCtx),
  });
  return {
    name: 'ollama',
    format: 'openai',
    model,
    contextLength: numCtx,
    outputCap: options.outputCap,
    chatPath: '/v1/chat/completions',
    rejectsEmptyMessages: true,
    reasoningField: 'reasoning',
    systemFingerprint: 'fp_ollama',
    usage: (prompt, completion) => ({
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    }),
    validate(body) {
      for (const message of Array.isArray(body.messages) ? body.messages : []) {
        const calls = (message as { tool_calls?: unknown }).tool_calls;
        for (const call of Array.isArray(calls) ? calls : []) {
          const text = (call as { function?: { arguments?: unknown } }).function?.arguments;
          if (typeof text !== 'string') continue;
          try {
            JSON.parse(text);
          } catch {
            return error(400, 'invalid tool call arguments');
          }
        }
      }
      return undefined;
    },
    admit(facts) {
      const outputLimit = facts.maxTokens ?? options.outputCap ?? Number.POSITIVE_INFINITY;
      const window = models.contextFor(facts.body.model);
      if (facts.promptTokens <= window)
        return { accepted: true, reportedPromptTokens: facts.promptTokens, outputLimit };
      return ollamaTruncate(facts, { numCtx: window, outputLimit });
    },
    badInput(kind, detail) {
      switch (kind) {
        case 'malformed_json':
          return error(400, "invalid character 'x' looking for beginning of value");
        case 'not_object':
          return error(
            400,
            'json: cannot unmarshal array into Go value of type openai.ChatCompletionRequest',
          );
        case 'missing_messages':
        case 'empty_messages':
          // ChatHandler answers a request without messages as a model load: 200, done_reason "load".
          return {
            status: 200,
            body: {
              id: 'chatcmpl-0',
              object: 'chat.completion',
              created: MODEL_CREATED,
              model,
              system_fingerprint: 'fp_ollama',
              choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'load' }],
              usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
            },
          };
        case 'invalid_messages':
          return error(
            400,
            'json: cannot unmarshal string into Go struct field ChatCompletionRequest.messages of type []openai.Message',
          );
        case 'invalid_max_tokens':
          return error(
            400,
            'json: cannot unmarshal max_tokens into Go struct field ChatCompletionRequest.max_tokens of type int',
          );
        case 'too_large':
          return error(413, `http: request body too large (${detail.bytes ?? 0} bytes)`);
        default:
          return { status: 404, body: '404 page not found', headers: { 'content-type': 'text/plain' } };
      }
    },
    failure(kind, { status }) {
      if (kind === 'rate_limit') return error(429, 'too many requests');
      if (kind === 'unavailable')
        return error(status ?? 503, 'server busy, please try again.  maximum pending requests exceeded');
      return error(status ?? 500, 'an error was encountered while running the model: unexpected EOF');
    },
    routes: {
      'POST /api/show': ({ body }) => models.show(body),
      'POST /api/create': ({ body }) => models.create(body),
      'GET /api/ps': () => models.loaded(),
      'GET /api/tags': () => models.tags(),
      'GET /v1/models': () => models.list(),
    },
  };
}

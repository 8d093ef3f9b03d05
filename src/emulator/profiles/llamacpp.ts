import { SpillwayError } from '../../core/index.js';
import { IM_END } from '../chat-template.js';
import { llamacppApplyTemplate, llamacppTokenize } from '../counting-routes.js';
import {
  type BadInputKind,
  type HttpReply,
  MODEL_CREATED,
  type Profile,
  type ProfileOptions,
} from './profile.js';

/** `llama-server -m qwen2.5-7b-instruct-q4_k_m.gguf -c 8192 --jinja`. */
export const LLAMACPP_DEFAULTS = { model: 'qwen2.5-7b-instruct-q4_k_m.gguf', contextLength: 8_192 } as const;

/**
 * llama.cpp's wordings of `exceed_context_size_error` (`tools/server`):
 * - `v1`: PR #15780 (Sep 2025), corpus `llamacpp-ctx-02`.
 * - `v2` (default): "the request exceeds the available context size, try increasing it", the text most
 *   clients match.
 * - `v3`: current `server-context.cpp`, with the figures in the text as well.
 */
export type LlamacppWording = 'v1' | 'v2' | 'v3';

export const LLAMACPP_WORDINGS: readonly LlamacppWording[] = ['v1', 'v2', 'v3'];

/** The llama.cpp overflow message for a prompt of `prompt` tokens in a context of `window`. */
export function llamacppOverflowMessage(wording: LlamacppWording, prompt: number, window: number): string {
  if (wording === 'v1')
    return 'the request exceeds the available context size. try increasing the context size or enable context shift';
  if (wording === 'v3')
    return `request (${prompt} tokens) exceeds the available context size (${window} tokens), try increasing it`;
  return 'the request exceeds the available context size, try increasing it';
}

function llamacppWording(wording: string | undefined): LlamacppWording {
  if (wording === undefined) return 'v2';
  if (!(LLAMACPP_WORDINGS as readonly string[]).includes(wording))
    throw new SpillwayError(
      'invalid_config',
      `wording must be one of ${LLAMACPP_WORDINGS.join(', ')} for llama.cpp, got ${JSON.stringify(wording)}`,
    );
  return wording as LlamacppWording;
}

/**
 * llama.cpp's `llama-server` (`localai: false`) or LocalAI with its llama.cpp backend (`localai: true`).
 *
 * llama.cpp rejects a prompt of `n_ctx` tokens or more (`if (n_tokens() >= n_ctx)`) with HTTP 400
 * `{"error":{"code":400,"message":…,"type":"exceed_context_size_error","n_prompt_tokens":N,"n_ctx":M}}`
 * and does not check `max_tokens` up front: a generation that reaches `n_ctx` stops with
 * `finish_reason: "length"`. `/props` reports `n_ctx`. LocalAI returns the backend's gRPC error as
 * HTTP 500 `{"error":{"code":500,"message":"rpc error: code = Internal desc = request (N tokens)
 * exceeds the available context size (M tokens), try increasing it","type":""}}` (nib fixture
 * `nib-llamacpp-localai-500`, corpus `llamacpp-ctx-05`).
 */
export function llamacppProfile(
  options: ProfileOptions,
  { localai = false }: { localai?: boolean } = {},
): Profile {
  const model = options.model ?? LLAMACPP_DEFAULTS.model;
  const window = options.contextLength ?? LLAMACPP_DEFAULTS.contextLength;
  const wording = llamacppWording(localai ? 'v3' : options.wording);
  const error = (status: number, message: string, type: string): HttpReply => ({
    status,
    body: { error: localai ? { code: status, message, type: '' } : { code: status, message, type } },
  });
  const badInputs: Partial<Record<BadInputKind, HttpReply>> = {
    malformed_json: localai
      ? error(500, "invalid character 'x' looking for beginning of value", '')
      : error(
          500,
          "[json.exception.parse_error.101] parse error at line 1, column 1: syntax error while parsing value - invalid literal; last read: 'x'",
          'server_error',
        ),
    not_object: error(
      500,
      '[json.exception.type_error.305] cannot use operator[] with a string argument with array',
      'server_error',
    ),
    missing_messages: error(400, "'messages' is required", 'invalid_request_error'),
    invalid_messages: error(400, "Expected 'messages' to be an array", 'invalid_request_error'),
    invalid_max_tokens: error(400, "'max_tokens' must be an integer", 'invalid_request_error'),
    too_large: error(413, 'Payload Too Large', 'invalid_request_error'),
  };
  const props = () => ({
    status: 200,
    body: {
      default_generation_settings: {
        id: 0,
        id_task: -1,
        n_ctx: window,
        speculative: false,
        is_processing: false,
        params: {
          n_predict: options.outputCap ?? -1,
          temperature: 0.8,
          top_k: 40,
          top_p: 0.95,
          stream: true,
        },
        prompt: '',
      },
      total_slots: 1,
      model_alias: model,
      model_path: `/models/${model}`,
      modalities: { vision: false, audio: false },
      chat_template: '{%- if tools %}…Qwen 2.5 ChatML…{%- endif %}',
      bos_token: '',
      eos_token: IM_END,
      build_info: 'b6500-emulated',
      n_ctx: window,
    },
  });
  const models = () => ({
    status: 200,
    body: localai
      ? { object: 'list', data: [{ id: model, object: 'model' }] }
      : {
          models: [
            {
              name: model,
              model,
              modified_at: '',
              size: '',
              digest: '',
              type: 'model',
              capabilities: ['completion'],
            },
          ],
          object: 'list',
          data: [
            {
              id: model,
              object: 'model',
              created: MODEL_CREATED,
              owned_by: 'llamacpp',
              meta: {
                vocab_type: 2,
                n_vocab: 152_064,
                n_ctx_train: 32_768,
                n_embd: 3_584,
                n_params: 7_615_616_512,
                size: 4_683_073_952,
              },
            },
          ],
        },
  });
  return {
    name: localai ? 'localai' : 'llamacpp',
    format: 'openai',
    model,
    contextLength: window,
    outputCap: options.outputCap,
    chatPath: '/v1/chat/completions',
    reasoningField: 'reasoning_content',
    systemFingerprint: localai ? undefined : 'b6500-emulated',
    usage: (prompt, completion) => ({
      completion_tokens: completion,
      prompt_tokens: prompt,
      total_tokens: prompt + completion,
    }),
    admit({ promptTokens, maxTokens }) {
      if (promptTokens >= window) {
        const message = llamacppOverflowMessage(wording, promptTokens, window);
        const reply: HttpReply = localai
          ? error(500, `rpc error: code = Internal desc = ${message}`, '')
          : {
              status: 400,
              body: {
                error: {
                  code: 400,
                  message,
                  type: 'exceed_context_size_error',
                  n_prompt_tokens: promptTokens,
                  n_ctx: window,
                },
              },
            };
        return { accepted: false, kind: 'context', reply };
      }
      // max_tokens is never checked against the window: `process_token` stops the generation once
      // the cached tokens (prompt and the tokens generated before this one) + 1 reach n_ctx, that is
      // after n_ctx - prompt tokens ("stopped due to running out of context capacity").
      const requested = maxTokens ?? options.outputCap ?? Number.POSITIVE_INFINITY;
      return {
        accepted: true,
        reportedPromptTokens: promptTokens,
        outputLimit: Math.min(requested, window - promptTokens),
      };
    },
    badInput(kind, detail) {
      return (
        badInputs[kind] ??
        error(
          404,
          localai ? `Cannot ${detail.method ?? 'GET'} ${detail.path ?? '/'}` : 'File Not Found',
          'not_found_error',
        )
      );
    },
    failure(kind, { status }) {
      if (kind === 'rate_limit') return error(429, 'Too Many Requests', 'unavailable_error');
      if (kind === 'unavailable') return error(status ?? 503, 'Loading model', 'unavailable_error');
      return error(status ?? 500, 'Internal Server Error', 'server_error');
    },
    routes: localai
      ? { 'GET /v1/models': models }
      : {
          'GET /props': props,
          'GET /v1/models': models,
          'POST /apply-template': llamacppApplyTemplate((message) =>
            error(400, message, 'invalid_request_error'),
          ),
          'POST /tokenize': llamacppTokenize((message) => error(400, message, 'invalid_request_error')),
        },
  };
}

import { MAX_BODY_BYTES } from './openai.js';
import { type HttpReply, openAIErrorBody, type Profile, type ProfileOptions } from './profile.js';
import { fastApiValidationMessage, vllmWording } from './vllm.js';
import { vllmCheck, vllmErrorBody } from './vllm-wordings.js';

/**
 * A LiteLLM proxy in front of vLLM, as captured from a live deployment (nib fixtures
 * `nib-regolo-vllm-*`): LiteLLM's `/model/info` advertises `max_input_tokens` and
 * `max_output_tokens` of 96,000 each while vLLM behind it enforces 210,000 on prompt + max_tokens.
 * `scale` multiplies all three (0.1 → 9,600 / 9,600 / 21,000).
 */
export const LITELLM_VLLM_DEFAULTS = {
  model: 'glm5.2',
  advertisedInput: 96_000,
  advertisedOutput: 96_000,
  enforced: 210_000,
} as const;

/**
 * The substrings LiteLLM's `ExceptionCheckers.is_error_str_context_window_exceeded`
 * (`litellm/litellm_core_utils/exception_mapping_utils.py`) maps to `ContextWindowExceededError`;
 * other overflow texts reach the client as a plain `BadRequestError`.
 */
export const LITELLM_CONTEXT_WINDOW_SUBSTRINGS = [
  'exceed context limit',
  "this model's maximum context length is",
  'string too long. expected a string with maximum length',
  "model's maximum context limit",
  "is longer than the model's context length",
  'input tokens exceed the configured limit',
  '`inputs` tokens + `max_new_tokens` must be',
  'exceeds the available context size',
  'exceeds the maximum number of tokens allowed',
] as const;

/** Whether LiteLLM would raise `ContextWindowExceededError` for this provider error text. */
export function litellmSeesContextWindow(text: string): boolean {
  const lower = text.toLowerCase();
  if (LITELLM_CONTEXT_WINDOW_SUBSTRINGS.some((substring) => lower.includes(substring))) return true;
  if (lower.includes('current length is') && lower.includes('while limit is')) return true;
  return lower.includes('maximum input length is') && lower.includes('tokens');
}

/**
 * The LiteLLM proxy's error body for a vLLM error: the exception chain in `message`, the router's
 * model-group note at the end, `code` as a string. Captured shapes: "litellm.ContextWindowExceededError:
 * litellm.BadRequestError: ContextWindowExceededError: Hosted_vllmException - {…}\nmodel=M.
 * context_window_fallbacks=None. fallbacks=None.\n\nSet 'context_window_fallback' - … Received Model
 * Group=M\nAvailable Model Group Fallbacks=None" and "litellm.BadRequestError: Hosted_vllmException -
 * {…}. Received Model Group=M\nAvailable Model Group Fallbacks=None".
 */
export function litellmWrap(
  model: string,
  upstream: string,
  status: number,
  exception = 'BadRequestError',
): HttpReply {
  const group = `Received Model Group=${model}\nAvailable Model Group Fallbacks=None`;
  const message =
    status === 400 && litellmSeesContextWindow(upstream)
      ? `litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: Hosted_vllmException - ${upstream}\nmodel=${model}. context_window_fallbacks=None. fallbacks=None.\n\nSet 'context_window_fallback' - https://docs.litellm.ai/docs/routing#fallbacks. ${group}`
      : `litellm.${exception}: ${exception === 'BadRequestError' ? '' : `${exception}: `}Hosted_vllmException - ${upstream}. ${group}`;
  return { status, body: openAIErrorBody(message, null, null, String(status)) };
}

/** The LiteLLM proxy over vLLM (see {@link LITELLM_VLLM_DEFAULTS}). */
export function litellmVllmProfile(options: ProfileOptions): Profile {
  const model = options.model ?? LITELLM_VLLM_DEFAULTS.model;
  const scale = options.scale ?? 1;
  const window = options.contextLength ?? Math.round(LITELLM_VLLM_DEFAULTS.enforced * scale);
  const advertisedInput = Math.round(LITELLM_VLLM_DEFAULTS.advertisedInput * scale);
  const advertisedOutput = options.outputCap ?? Math.round(LITELLM_VLLM_DEFAULTS.advertisedOutput * scale);
  const wording = vllmWording(options.wording);
  const modelInfo = () => ({
    status: 200,
    body: {
      data: [
        {
          model_name: model,
          litellm_params: { model: `hosted_vllm/${model}`, api_base: 'http://vllm:8000/v1' },
          model_info: {
            id: 'emulator-deployment',
            db_model: false,
            key: `hosted_vllm/${model}`,
            max_tokens: advertisedOutput,
            max_input_tokens: advertisedInput,
            max_output_tokens: advertisedOutput,
            input_cost_per_token: 0,
            output_cost_per_token: 0,
            litellm_provider: 'hosted_vllm',
            mode: 'chat',
            supports_function_calling: true,
            supports_tool_choice: true,
          },
        },
      ],
    },
  });
  return {
    name: 'litellm-vllm',
    format: 'openai',
    model,
    contextLength: window,
    outputCap: undefined,
    chatPath: '/v1/chat/completions',
    servesResponses: true,
    reasoningField: 'reasoning_content',
    systemFingerprint: null,
    usage: (prompt, completion) => ({
      completion_tokens: completion,
      prompt_tokens: prompt,
      total_tokens: prompt + completion,
      completion_tokens_details: null,
      prompt_tokens_details: null,
    }),
    admit({ promptTokens, maxTokens, maxTokensField }) {
      const check = vllmCheck({ wording, window, promptTokens, maxTokens, maxTokensField });
      if (check.ok)
        return { accepted: true, reportedPromptTokens: promptTokens, outputLimit: check.outputLimit };
      const upstream = JSON.stringify(vllmErrorBody(wording, check.message, check.param));
      return { accepted: false, kind: check.kind, reply: litellmWrap(model, upstream, 400) };
    },
    badInput(kind, detail) {
      if (kind === 'not_found') return { status: 404, body: { detail: 'Not Found' } };
      if (kind === 'too_large')
        return {
          status: 413,
          body: openAIErrorBody(
            `Request size is too large. Request size is ${Math.ceil((detail.bytes ?? 0) / 1_048_576)} MB. Max size is ${MAX_BODY_BYTES / 1_048_576} MB`,
            'bad_request_error',
            'None',
            '413',
          ),
        };
      if (kind === 'malformed_json' || kind === 'not_object')
        return {
          status: 400,
          body: openAIErrorBody(
            `Invalid JSON payload: ${detail.error ?? 'the body is not a JSON object'}`,
            'invalid_request_error',
            null,
            '400',
          ),
        };
      const upstream = JSON.stringify({
        error: {
          message: fastApiValidationMessage(kind, detail),
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      });
      return litellmWrap(model, upstream, 400);
    },
    failure(kind, { status }) {
      if (kind === 'rate_limit') return litellmWrap(model, 'Too Many Requests', 429, 'RateLimitError');
      if (kind === 'unavailable')
        return litellmWrap(model, 'Service Unavailable', status ?? 503, 'ServiceUnavailableError');
      return litellmWrap(model, 'Internal Server Error', status ?? 500, 'InternalServerError');
    },
    routes: {
      'GET /model/info': modelInfo,
      'GET /v1/model/info': modelInfo,
      'GET /v1/models': () => ({
        status: 200,
        body: {
          data: [{ id: model, object: 'model', created: 1_677_610_602, owned_by: 'openai' }],
          object: 'list',
        },
      }),
    },
  };
}

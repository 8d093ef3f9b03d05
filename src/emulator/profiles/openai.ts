import { openAIInputTokens } from '../counting-routes.js';
import { MODEL_CREATED, openAIErrorBody, type Profile, type ProfileOptions } from './profile.js';

/** gpt-4o: 128,000-token window, 16,384 completion tokens (OpenAI model page). */
export const OPENAI_DEFAULTS = { model: 'gpt-4o', contextLength: 128_000, outputCap: 16_384 } as const;

/** `max_body_size` the emulators enforce on every profile: 32 MiB, Anthropic's documented request limit. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * OpenAI Chat Completions. Rejections as captured in the overflow corpus (`openai-output-cap-02`,
 * `openai-ctx-messages-06`, `openai-budget-04`): the output cap first, then the prompt alone
 * ("your messages resulted in"), then prompt + max_tokens ("you requested T tokens (A in the
 * messages, B in the completion)"), all 400 with `code: "context_length_exceeded"` except the cap.
 */
export function openAIProfile(options: ProfileOptions): Profile {
  const model = options.model ?? OPENAI_DEFAULTS.model;
  const window = options.contextLength ?? OPENAI_DEFAULTS.contextLength;
  const cap = options.outputCap ?? OPENAI_DEFAULTS.outputCap;
  const reply = (
    status: number,
    message: string,
    type: string,
    param: string | null = null,
    code: string | null = null,
  ) => ({
    status,
    body: openAIErrorBody(message, type, param, code),
  });
  return {
    name: 'openai',
    format: 'openai',
    model,
    contextLength: window,
    outputCap: cap,
    rejectsEmptyMessages: true,
    chatPath: '/v1/chat/completions',
    servesResponses: true,
    roles: ['system', 'developer', 'user', 'assistant', 'tool', 'function'],
    systemFingerprint: 'fp_emulator',
    usage: (prompt, completion, reasoning) => ({
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: reasoning,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    }),
    admit({ promptTokens, maxTokens, maxTokensField }) {
      if (maxTokens !== undefined && maxTokens > cap)
        return {
          accepted: false,
          kind: 'output_cap',
          reply: reply(
            400,
            `${maxTokensField} is too large: ${maxTokens}. This model supports at most ${cap} completion tokens, whereas you provided ${maxTokens}.`,
            'invalid_request_error',
            maxTokensField,
          ),
        };
      if (promptTokens > window)
        return {
          accepted: false,
          kind: 'context',
          reply: reply(
            400,
            `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
            'invalid_request_error',
            'messages',
            'context_length_exceeded',
          ),
        };
      if (maxTokens !== undefined && promptTokens + maxTokens > window)
        return {
          accepted: false,
          kind: 'budget',
          reply: reply(
            400,
            `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
            'invalid_request_error',
            'messages',
            'context_length_exceeded',
          ),
        };
      return {
        accepted: true,
        reportedPromptTokens: promptTokens,
        outputLimit: Math.min(maxTokens ?? cap, window - promptTokens),
      };
    },
    badInput(kind, detail) {
      switch (kind) {
        case 'malformed_json':
        case 'not_object':
          return reply(
            400,
            "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
            'invalid_request_error',
          );
        case 'missing_messages':
          return reply(
            400,
            "Missing required parameter: 'messages'.",
            'invalid_request_error',
            'messages',
            'missing_required_parameter',
          );
        case 'invalid_messages':
          return reply(
            400,
            "Invalid type for 'messages': expected an array of objects.",
            'invalid_request_error',
            'messages',
            'invalid_type',
          );
        case 'empty_messages':
          return reply(400, "[] is too short - 'messages'", 'invalid_request_error', 'messages');
        case 'unknown_role':
          return reply(
            400,
            `Invalid value: ${JSON.stringify(detail.role ?? null).replace(/"/g, "'")}. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
            'invalid_request_error',
            `messages[${detail.index ?? 0}].role`,
            'invalid_value',
          );
        case 'invalid_max_tokens':
          return reply(
            400,
            `Invalid 'max_tokens': integer below minimum value. Expected a value >= 1.`,
            'invalid_request_error',
            'max_tokens',
            'integer_below_min_value',
          );
        case 'too_large':
          return reply(
            413,
            `Request too large: ${detail.bytes ?? 0} bytes exceeds the maximum of ${MAX_BODY_BYTES} bytes.`,
            'invalid_request_error',
            null,
            'request_too_large',
          );
        default:
          return reply(
            404,
            `Invalid URL (${detail.method ?? 'GET'} ${detail.path ?? '/'})`,
            'invalid_request_error',
          );
      }
    },
    failure(kind, { status }) {
      if (kind === 'rate_limit')
        return reply(
          429,
          `Rate limit reached for ${model} in organization org-emulator on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
          'requests',
          null,
          'rate_limit_exceeded',
        );
      if (kind === 'unavailable')
        return reply(
          status ?? 503,
          'The engine is currently overloaded, please try again later',
          'server_error',
        );
      return reply(
        status ?? 500,
        'The server had an error while processing your request. Sorry about that!',
        'server_error',
      );
    },
    routes: {
      'POST /v1/responses/input_tokens': openAIInputTokens((message) =>
        reply(400, message, 'invalid_request_error'),
      ),
      'GET /v1/models': () => ({
        status: 200,
        body: {
          object: 'list',
          data: [{ id: model, object: 'model', created: MODEL_CREATED, owned_by: 'system' }],
        },
      }),
    },
  };
}

import { SpillwayError } from '../../core/index.js';
import { vllmTokenize } from '../counting-routes.js';
import { toPythonRepr } from '../python-json.js';
import { MAX_BODY_BYTES } from './openai.js';
import {
  type BadInputDetail,
  type BadInputKind,
  type HttpReply,
  MODEL_CREATED,
  type Profile,
  type ProfileOptions,
} from './profile.js';
import {
  DEFAULT_VLLM_WORDING,
  VLLM_WORDINGS,
  type VllmWording,
  vllmCheck,
  vllmErrorBody,
} from './vllm-wordings.js';

/** `vllm serve Qwen/Qwen2.5-7B-Instruct`: `max_model_len` from the model config, 32,768. */
export const VLLM_DEFAULTS = { model: 'Qwen/Qwen2.5-7B-Instruct', contextLength: 32_768 } as const;

/** The wording option, checked. */
export function vllmWording(wording: string | undefined): VllmWording {
  if (wording === undefined) return DEFAULT_VLLM_WORDING;
  if (!(VLLM_WORDINGS as readonly string[]).includes(wording))
    throw new SpillwayError(
      'invalid_config',
      `wording must be one of ${VLLM_WORDINGS.join(', ')} for vLLM profiles, got ${JSON.stringify(wording)}`,
    );
  return wording as VllmWording;
}

/**
 * The text of FastAPI's `RequestValidationError` as vLLM returns it (`str(exc)`: a Python repr of
 * pydantic's error list), for the malformed requests vLLM's schema rejects.
 */
export function fastApiValidationMessage(kind: BadInputKind, detail: BadInputDetail): string {
  const input = detail.body === undefined ? '{}' : toPythonRepr(detail.body);
  switch (kind) {
    case 'malformed_json':
      return `[{'type': 'json_invalid', 'loc': ('body', 0), 'msg': 'JSON decode error', 'input': {}, 'ctx': {'error': 'Expecting value'}}]`;
    case 'not_object':
      return `[{'type': 'model_attributes_type', 'loc': ('body',), 'msg': 'Input should be a valid dictionary or object to extract fields from', 'input': ${input}}]`;
    case 'missing_messages':
      return `[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required', 'input': ${input}}]`;
    case 'invalid_max_tokens':
      return `[{'type': 'int_type', 'loc': ('body', 'max_tokens'), 'msg': 'Input should be a valid integer', 'input': ${input}}]`;
    default:
      return `[{'type': 'list_type', 'loc': ('body', 'messages'), 'msg': 'Input should be a valid list', 'input': ${input}}]`;
  }
}

/**
 * vLLM's OpenAI-compatible server. Enforces `prompt + max_tokens <= max_model_len` with the wording
 * of the release chosen by `wording` (default: the current `vllm/renderers/params.py`); when
 * `max_tokens` is absent it generates up to `max_model_len - prompt`. `GET /v1/models` reports
 * `max_model_len`. Roles are not checked (vLLM accepts custom roles; the template skips them).
 */
export function vllmProfile(options: ProfileOptions): Profile {
  const model = options.model ?? VLLM_DEFAULTS.model;
  const window = options.contextLength ?? VLLM_DEFAULTS.contextLength;
  const wording = vllmWording(options.wording);
  const fail = (status: number, message: string, type: string): HttpReply => ({
    status,
    body:
      wording === 'v0' || wording === 'sglang'
        ? { object: 'error', message, type, param: null, code: status }
        : { error: { message, type, param: null, code: status } },
  });
  return {
    name: 'vllm',
    format: 'openai',
    model,
    contextLength: window,
    outputCap: options.outputCap,
    chatPath: '/v1/chat/completions',
    servesResponses: true,
    reasoningField: wording === 'v0' || wording === 'v1' ? 'reasoning_content' : 'reasoning',
    systemFingerprint: null,
    usage: (prompt, completion) => ({
      prompt_tokens: prompt,
      total_tokens: prompt + completion,
      completion_tokens: completion,
      prompt_tokens_details: null,
    }),
    admit({ promptTokens, maxTokens, maxTokensField }) {
      const check = vllmCheck({ wording, window, promptTokens, maxTokens, maxTokensField });
      if (!check.ok)
        return {
          accepted: false,
          kind: check.kind,
          reply: { status: 400, body: vllmErrorBody(wording, check.message, check.param) },
        };
      const limit =
        options.outputCap === undefined ? check.outputLimit : Math.min(check.outputLimit, options.outputCap);
      return { accepted: true, reportedPromptTokens: promptTokens, outputLimit: limit };
    },
    badInput(kind, detail) {
      if (kind === 'not_found') return { status: 404, body: { detail: 'Not Found' } };
      if (kind === 'too_large')
        return fail(
          413,
          `Request body too large: ${detail.bytes ?? 0} bytes > ${MAX_BODY_BYTES} bytes`,
          'BadRequestError',
        );
      return fail(400, fastApiValidationMessage(kind, detail), 'BadRequestError');
    },
    failure(kind, { status }) {
      if (kind === 'rate_limit') return fail(429, 'Too Many Requests', 'RateLimitError');
      if (kind === 'unavailable')
        return fail(status ?? 503, 'Service Unavailable', 'ServiceUnavailableError');
      return fail(
        status ?? 500,
        'EngineCore encountered an issue. See stack trace (above) for the root cause.',
        'InternalServerError',
      );
    },
    routes: {
      'POST /tokenize': vllmTokenize(window, (message) => fail(400, message, 'BadRequestError')),
      'GET /v1/models': () => ({
        status: 200,
        body: {
          object: 'list',
          data: [
            {
              id: model,
              object: 'model',
              created: MODEL_CREATED,
              owned_by: 'vllm',
              root: model,
              parent: null,
              max_model_len: window,
              permission: [
                {
                  id: 'modelperm-emulator',
                  object: 'model_permission',
                  created: MODEL_CREATED,
                  allow_create_engine: false,
                  allow_sampling: true,
                  allow_logprobs: true,
                  allow_search_indices: false,
                  allow_view: true,
                  allow_fine_tuning: false,
                  organization: '*',
                  group: null,
                  is_blocking: false,
                },
              ],
            },
          ],
        },
      }),
    },
  };
}

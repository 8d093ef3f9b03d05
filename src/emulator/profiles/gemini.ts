/**
 * @module
 * The Gemini API (`generativelanguage.googleapis.com`): `POST /v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent` (`?alt=sse`), `:countTokens`, `GET /v1beta/models/{model}` with the
 * model's `inputTokenLimit` and `outputTokenLimit`, and its OpenAI-compatible chat endpoint. Errors
 * in Google's envelope `{"error":{"code","message","status"}}`, with the wordings captured in the
 * overflow corpus:
 * - over the window, 400 `INVALID_ARGUMENT` "The input token count (N) exceeds the maximum number
 *   of tokens allowed (M)." (`gemini-ctx-02`, google-gemini/gemini-cli#4231). Only the prompt is
 *   checked against the window; the reply has its own limit.
 * - `maxOutputTokens` over the model's output limit, 400 "Unable to submit request because it has
 *   a maxOutputTokens value of X but the supported range is from 1 (inclusive) to L+1 (exclusive).
 *   Update the value and try again." (`gemini-output-cap-01`, stackblitz-labs/bolt.diy#955).
 * - function responses that do not match the calls of their turn, 400 "Please ensure that the
 *   number of function response parts is equal to the number of function call parts of the
 *   function call turn." (google-gemini/gemini-cli#4217, #5443).
 * - overloaded, 503 `UNAVAILABLE` "This model is currently experiencing high demand. Spikes in
 *   demand are usually temporary. Please try again later." (`gemini-high-demand-01`).
 */
import type { HttpReply, Profile, ProfileOptions } from './profile.js';

/** Gemini 2.5 Pro: 1,048,576 input tokens, 65,536 output tokens (Gemini API models reference). */
export const GEMINI_DEFAULTS = {
  model: 'gemini-2.5-pro',
  contextLength: 1_048_576,
  outputCap: 65_536,
} as const;

/** Google's canonical status names by HTTP status (google.rpc.Code). */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** A reply in Google's error envelope. */
export function googleError(status: number, message: string): HttpReply {
  return { status, body: { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } } };
}

/** The rejection of function responses that do not answer their turn's calls one for one. */
export const GEMINI_PAIRING_MESSAGE =
  'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';

/** `GET /v1beta/models/{model}`: the model as the Models API describes it. */
export function geminiModelInfo(model: string, window: number, cap: number): Record<string, unknown> {
  return {
    name: `models/${model}`,
    version: '2.5',
    displayName: model,
    description: `Emulated ${model}`,
    inputTokenLimit: window,
    outputTokenLimit: cap,
    supportedGenerationMethods: [
      'generateContent',
      'countTokens',
      'createCachedContent',
      'batchGenerateContent',
    ],
    temperature: 1,
    topP: 0.95,
    topK: 64,
    maxTemperature: 2,
    thinking: true,
  };
}

/**
 * The Gemini API. Requests in its own format are read with Spillway's converters into the chat
 * request the emulator counts and answers (see `handle-gemini.ts`); this profile decides admission
 * and words the errors.
 */
export function geminiProfile(options: ProfileOptions): Profile {
  const model = options.model ?? GEMINI_DEFAULTS.model;
  const window = options.contextLength ?? GEMINI_DEFAULTS.contextLength;
  const cap = options.outputCap ?? GEMINI_DEFAULTS.outputCap;
  const invalid = (message: string): HttpReply => googleError(400, message);
  const info = (): HttpReply => ({ status: 200, body: geminiModelInfo(model, window, cap) });
  return {
    name: 'gemini',
    format: 'openai',
    model,
    contextLength: window,
    outputCap: cap,
    chatPath: '/v1beta/openai/chat/completions',
    servesGemini: true,
    usage: (prompt, completion) => ({
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    }),
    admit({ promptTokens, maxTokens }) {
      if (maxTokens !== undefined && maxTokens > cap)
        return {
          accepted: false,
          kind: 'output_cap',
          reply: invalid(
            `Unable to submit request because it has a maxOutputTokens value of ${maxTokens} but the supported range is from 1 (inclusive) to ${cap + 1} (exclusive). Update the value and try again.`,
          ),
        };
      if (promptTokens > window)
        return {
          accepted: false,
          kind: 'context',
          reply: invalid(
            `The input token count (${promptTokens}) exceeds the maximum number of tokens allowed (${window}).`,
          ),
        };
      return {
        accepted: true,
        reportedPromptTokens: promptTokens,
        outputLimit: Math.min(maxTokens ?? cap, cap),
      };
    },
    badInput(kind, detail) {
      switch (kind) {
        case 'malformed_json':
        case 'not_object':
          return invalid(`Invalid JSON payload received. ${detail.error ?? 'Expected an object.'}`);
        case 'missing_messages':
        case 'invalid_messages':
        case 'empty_messages':
          return invalid('* GenerateContentRequest.contents: contents is not specified\n');
        case 'unknown_role':
          return invalid('Please use a valid role: user, model.');
        case 'invalid_max_tokens':
        case 'missing_max_tokens':
          return invalid('max_output_tokens must be positive.');
        case 'too_large':
          return googleError(413, 'Request payload size exceeds the limit: 20971520 bytes.');
        default:
          return googleError(404, `Method not found: ${detail.method ?? 'GET'} ${detail.path ?? '/'}.`);
      }
    },
    failure(kind, { status }) {
      if (kind === 'rate_limit') return googleError(429, 'Resource has been exhausted (e.g. check quota).');
      if (kind === 'unavailable')
        return googleError(
          status ?? 503,
          'This model is currently experiencing high demand. Spikes in demand are usually temporary. Please try again later.',
        );
      return googleError(
        status ?? 500,
        'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
      );
    },
    routes: {
      [`GET /v1beta/models/${model}`]: info,
      'GET /v1beta/models': () => ({ status: 200, body: { models: [geminiModelInfo(model, window, cap)] } }),
    },
  };
}

import { anthropicCountTokens } from '../counting-routes.js';
import { createRandom } from '../random.js';
import type { HttpReply, Profile, ProfileOptions } from './profile.js';

/** Claude Sonnet 4.5: 200,000-token window, 64,000 output tokens (Anthropic models overview). */
export const ANTHROPIC_DEFAULTS = {
  model: 'claude-sonnet-4-5',
  contextLength: 200_000,
  outputCap: 64_000,
} as const;

/** A request id shaped like Anthropic's (`req_011C…`), drawn from the seed and the request number. */
export function anthropicRequestId(seed: number, requestNumber: number): string {
  return `req_011C${createRandom(seed, 'request-id', requestNumber).chars(20)}`;
}

/**
 * Anthropic Messages. Rejections as captured in the overflow corpus: `anthropic-output-cap-03`
 * ("max_tokens: X > Y, which is the maximum allowed number of output tokens for M"),
 * `anthropic-prompt-too-long-03` ("prompt is too long: N tokens > M maximum") and
 * `anthropic-budget-04` ("input length and `max_tokens` exceed context limit: A + B > C, …"), each a
 * 400 `invalid_request_error` in the `{"type":"error","error":{…},"request_id":…}` envelope.
 * Oversized bodies get the 413 `request_too_large` body of `anthropic-413-bytes-02`.
 */
export function anthropicProfile(options: ProfileOptions): Profile {
  const model = options.model ?? ANTHROPIC_DEFAULTS.model;
  const window = options.contextLength ?? ANTHROPIC_DEFAULTS.contextLength;
  const cap = options.outputCap ?? ANTHROPIC_DEFAULTS.outputCap;
  const reply = (status: number, type: string, message: string, requestNumber = 0): HttpReply => ({
    status,
    body: {
      type: 'error',
      error: { type, message },
      request_id: anthropicRequestId(options.seed, requestNumber),
    },
    headers: { 'request-id': anthropicRequestId(options.seed, requestNumber) },
  });
  const invalid = (message: string, requestNumber = 0): HttpReply =>
    reply(400, 'invalid_request_error', message, requestNumber);
  return {
    name: 'anthropic',
    format: 'anthropic',
    model,
    contextLength: window,
    outputCap: cap,
    rejectsEmptyMessages: true,
    chatPath: '/v1/messages',
    roles: ['user', 'assistant'],
    usage: (prompt, completion) => ({
      input_tokens: prompt,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: completion,
    }),
    validate(body, { requestNumber }) {
      if (body.max_tokens === undefined) return invalid('max_tokens: Field required', requestNumber);
      if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
        return invalid('max_tokens: Input should be greater than or equal to 1', requestNumber);
      return undefined;
    },
    admit({ promptTokens, maxTokens = 0, requestNumber }) {
      if (maxTokens > cap)
        return {
          accepted: false,
          kind: 'output_cap',
          reply: invalid(
            `max_tokens: ${maxTokens} > ${cap}, which is the maximum allowed number of output tokens for ${model}`,
            requestNumber,
          ),
        };
      if (promptTokens > window)
        return {
          accepted: false,
          kind: 'context',
          reply: invalid(`prompt is too long: ${promptTokens} tokens > ${window} maximum`, requestNumber),
        };
      if (promptTokens + maxTokens > window)
        return {
          accepted: false,
          kind: 'budget',
          reply: invalid(
            `input length and \`max_tokens\` exceed context limit: ${promptTokens} + ${maxTokens} > ${window}, decrease input length or \`max_tokens\` and try again`,
            requestNumber,
          ),
        };
      return { accepted: true, reportedPromptTokens: promptTokens, outputLimit: maxTokens };
    },
    badInput(kind, detail) {
      const n = detail.requestNumber ?? 0;
      switch (kind) {
        case 'malformed_json':
        case 'not_object':
          return invalid(
            `There was an error parsing the body of your request: ${detail.error ?? 'the body is not a JSON object'}`,
            n,
          );
        case 'missing_messages':
          return invalid('messages: Field required', n);
        case 'invalid_messages':
          return invalid('messages: Input should be a valid list', n);
        case 'empty_messages':
          return invalid('messages: at least one message is required', n);
        case 'unknown_role':
          return invalid(`messages.${detail.index ?? 0}.role: Input should be 'user' or 'assistant'`, n);
        case 'invalid_max_tokens':
        case 'missing_max_tokens':
          return invalid('max_tokens: Field required', n);
        case 'too_large':
          return {
            status: 413,
            body: { error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } },
          };
        default:
          return reply(404, 'not_found_error', 'Not Found', n);
      }
    },
    failure(kind, { status, requestNumber }) {
      if (kind === 'rate_limit')
        return reply(
          429,
          'rate_limit_error',
          'This request would exceed the rate limit for your organization of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
          requestNumber,
        );
      if (kind === 'unavailable')
        return reply(status ?? 529, 'overloaded_error', 'Overloaded', requestNumber);
      return reply(status ?? 500, 'api_error', 'Internal server error', requestNumber);
    },
    routes: {
      'POST /v1/messages/count_tokens': anthropicCountTokens((message) => invalid(message)),
      'GET /v1/models': () => ({
        status: 200,
        body: {
          data: [{ type: 'model', id: model, display_name: model, created_at: '2025-09-29T00:00:00Z' }],
          has_more: false,
          first_id: model,
          last_id: model,
        },
      }),
    },
  };
}

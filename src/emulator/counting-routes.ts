/**
 * @module
 * The servers' token-counting endpoints: Anthropic's `POST /v1/messages/count_tokens` (answers
 * `{"input_tokens": N}`) and the Responses API's `POST /v1/responses/input_tokens` (answers
 * `{"object": "response.input_tokens", "input_tokens": N}`), each counting exactly what a chat
 * request with the same body would report in its usage.
 */
import { fromResponses, SpillwayError, toOpenAIChat } from '../core/index.js';
import { countTemplateTokens, templateInputOf } from './count-prompt-tokens.js';
import type { ChatContext } from './handle-chat.js';
import { type HttpReply, openAIErrorBody } from './profiles/profile.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The counting endpoint's answer for `route` (`"POST /path"`), or `undefined` when the profile has none there. */
export function countingReply(
  context: ChatContext,
  route: string,
  parsed: { body?: unknown; error?: string },
): HttpReply | undefined {
  const { profile, tokenizer } = context;
  if (route === 'POST /v1/messages/count_tokens' && profile.format === 'anthropic') {
    if (!isRecord(parsed.body) || !Array.isArray(parsed.body.messages))
      return profile.badInput(parsed.error === undefined ? 'missing_messages' : 'malformed_json', {
        ...(parsed.error === undefined ? {} : { error: parsed.error }),
      });
    const tokens = countTemplateTokens(templateInputOf(parsed.body, { format: 'anthropic' }), tokenizer);
    return { status: 200, body: { input_tokens: tokens } };
  }
  if (route === 'POST /v1/responses/input_tokens' && profile.servesResponses) {
    try {
      const chat = toOpenAIChat(fromResponses(parsed.body ?? ''));
      const tokens = countTemplateTokens(templateInputOf(chat, { format: 'openai' }), tokenizer);
      return { status: 200, body: { object: 'response.input_tokens', input_tokens: tokens } };
    } catch (error) {
      if (!SpillwayError.isInstance(error)) throw error;
      return { status: 400, body: openAIErrorBody(error.message, 'invalid_request_error', 'input', null) };
    }
  }
  return undefined;
}

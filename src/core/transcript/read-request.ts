import { SpillwayError } from '../errors/index.js';
import { fromAnthropic, toAnthropic } from './anthropic-messages.js';
import { detectFormat } from './detect-format.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';
import { requireChatRequest } from './require-input.js';
import type { ChatRequest, RequestFormat } from './types.js';
import { readBody } from './wire.js';
import type { AnthropicMessagesBody, OpenAIChatBody } from './wire-bodies.js';

/**
 * Reads a request body in either wire format, detected from its fields unless `format` is given.
 *
 * @example
 * const request = readRequest(JSON.parse(text)); // request.format is 'openai' or 'anthropic'
 */
export function readRequest(body: unknown, options: { format?: RequestFormat } = {}): ChatRequest {
  const format = options?.format;
  if (format !== undefined && format !== 'openai' && format !== 'anthropic')
    throw new SpillwayError(
      'invalid_argument',
      `readRequest: format must be "openai" or "anthropic", got ${JSON.stringify(format)}`,
    );
  const value = typeof body === 'string' ? readBody(body, 'the request') : body;
  const chosen = format ?? detectFormat(value);
  return chosen === 'anthropic' ? fromAnthropic(value) : fromOpenAIChat(value);
}

/** Writes a request in `format`, by default the format it was read from. */
export function writeRequest(
  request: ChatRequest,
  options: { format?: RequestFormat } = {},
): OpenAIChatBody | AnthropicMessagesBody {
  requireChatRequest(request, 'writeRequest', { requireExtra: true });
  const format = options?.format ?? request.format;
  return format === 'anthropic' ? toAnthropic(request) : toOpenAIChat(request);
}

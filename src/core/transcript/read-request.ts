import { SpillwayError } from '../errors/index.js';
import { fromAnthropic, toAnthropic } from './anthropic-messages.js';
import { detectFormat } from './detect-format.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';
import { fromResponses, toResponses } from './openai-responses.js';
import { requireChatRequest } from './require-input.js';
import { type ChatRequest, REQUEST_FORMATS, type RequestFormat } from './types.js';
import { readObjectBody } from './wire.js';
import type { AnthropicMessagesBody, OpenAIChatBody, ResponsesBody } from './wire-bodies.js';

/**
 * Reads a request body in any of the wire formats, detected from its fields unless `format` is given.
 *
 * @example
 * const request = readRequest(JSON.parse(text)); // request.format is 'openai', 'anthropic' or 'responses'
 */
export function readRequest(body: unknown, options: { format?: RequestFormat } = {}): ChatRequest {
  const format = options?.format;
  if (format !== undefined && !REQUEST_FORMATS.includes(format))
    throw new SpillwayError(
      'invalid_argument',
      `readRequest: format must be "openai", "anthropic" or "responses", got ${JSON.stringify(format)}`,
    );
  if (format === 'responses') return fromResponses(body);
  const value =
    typeof body === 'string' ? readObjectBody(body, 'the request', 'a "messages" array or an "input"') : body;
  const chosen = format ?? detectFormat(value);
  if (chosen === 'responses') return fromResponses(value);
  return chosen === 'anthropic' ? fromAnthropic(value) : fromOpenAIChat(value);
}

/** Writes a request in `format`, by default the format it was read from. */
export function writeRequest(
  request: ChatRequest,
  options: { format?: RequestFormat } = {},
): OpenAIChatBody | AnthropicMessagesBody | ResponsesBody {
  requireChatRequest(request, 'writeRequest', { requireExtra: true });
  const format = options?.format ?? request.format;
  if (format === 'responses') return toResponses(request);
  return format === 'anthropic' ? toAnthropic(request) : toOpenAIChat(request);
}

import { fromAnthropic, toAnthropic } from './anthropic-messages.js';
import { detectFormat } from './detect-format.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';
import type { ChatRequest, RequestFormat } from './types.js';
import { readBody } from './wire.js';
import type { AnthropicMessagesBody, OpenAIChatBody } from './wire-bodies.js';

/**
 * Reads a request body in either wire format, detected from its fields unless `format` is given.
 *
 * @example
 * const request = readRequest(JSON.parse(text)); // request.format is 'openai' or 'anthropic'
 */
export function readRequest(body: unknown, { format }: { format?: RequestFormat } = {}): ChatRequest {
  const value = typeof body === 'string' ? readBody(body, 'the request') : body;
  const chosen = format ?? detectFormat(value);
  return chosen === 'anthropic' ? fromAnthropic(value) : fromOpenAIChat(value);
}

/** Writes a request in `format`, by default the format it was read from. */
export function writeRequest(
  request: ChatRequest,
  { format = request.format }: { format?: RequestFormat } = {},
): OpenAIChatBody | AnthropicMessagesBody {
  return format === 'anthropic' ? toAnthropic(request) : toOpenAIChat(request);
}

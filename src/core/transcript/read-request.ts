import { SpillwayError } from '../errors/index.js';
import { fromAnthropic, toAnthropic } from './anthropic-messages.js';
import { detectFormat } from './detect-format.js';
import { fromGemini, toGemini } from './gemini-generate-content.js';
import type { GeminiGenerateContentBody } from './gemini-wire.js';
import { isJsonBody } from './json-text-memo.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';
import { fromResponses, toResponses } from './openai-responses.js';
import { requireChatRequest } from './require-input.js';
import { type ChatRequest, REQUEST_FORMATS, type RequestFormat } from './types.js';
import { readObjectBody } from './wire.js';
import type { AnthropicMessagesBody, OpenAIChatBody, ResponsesBody } from './wire-bodies.js';

/**
 * Reads a request body in any of the wire formats, detected from its fields unless `format` is given
 * (a Gemini `generateContent` body only with `format: 'gemini'`, and its `model` from the URL).
 *
 * @example
 * const request = readRequest(JSON.parse(text)); // request.format is 'openai', 'anthropic' or 'responses'
 */
export function readRequest(
  body: unknown,
  options: { format?: RequestFormat; model?: string } = {},
): ChatRequest {
  const format = options?.format;
  if (format !== undefined && !REQUEST_FORMATS.includes(format))
    throw new SpillwayError(
      'invalid_argument',
      `readRequest: format must be one of ${REQUEST_FORMATS.map((name) => `"${name}"`).join(', ')}, got ${JSON.stringify(format)}`,
    );
  if (format === 'responses') return fromResponses(body);
  // A Gemini body names no model (the URL does) and shares no field with the others: only on request.
  if (format === 'gemini')
    return fromGemini(body, options.model === undefined ? {} : { model: options.model });
  const value = isJsonBody(body)
    ? readObjectBody(body, 'the request', 'a "messages" array or an "input"')
    : body;
  const chosen = format ?? detectFormat(value);
  if (chosen === 'responses') return fromResponses(value);
  return chosen === 'anthropic' ? fromAnthropic(value) : fromOpenAIChat(value);
}

/** Writes a request in `format`, by default the format it was read from. */
export function writeRequest(
  request: ChatRequest,
  options: { format?: RequestFormat } = {},
): OpenAIChatBody | AnthropicMessagesBody | ResponsesBody | GeminiGenerateContentBody {
  requireChatRequest(request, 'writeRequest', { requireExtra: true });
  const format = options?.format ?? request.format;
  if (format === 'responses') return toResponses(request);
  if (format === 'gemini') return toGemini(request);
  return format === 'anthropic' ? toAnthropic(request) : toOpenAIChat(request);
}

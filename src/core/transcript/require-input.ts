/**
 * @module
 * Checks at the library's entry points: a caller who passes `null`, a wire body where a normalized
 * request belongs (`fit(body)` instead of `fit(fromOpenAIChat(body))`), or messages in a wire shape
 * gets a `SpillwayError` saying what to pass, never a `TypeError` from deep inside.
 */
import { SpillwayError } from '../errors/index.js';
import { conversion, describe, isPlainObject, WIRE_BLOCKS } from './message-problem.js';
import { indexTranscript } from './transcript-index.js';
import { type ChatRequest, type Message, REQUEST_FORMATS, type RequestFormat } from './types.js';

/** Request fields of the wire formats; a normalized request keeps them under `extra` or `maxTokens`. */
const WIRE_REQUEST_FIELDS = ['max_tokens', 'max_completion_tokens', 'system', 'tool_choice'];

/** Throws `invalid_argument` unless `value` is a plain object; `expected` says what to pass. */
export function requireObject(value: unknown, call: string, expected: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SpillwayError('invalid_argument', `${call} takes ${expected}; got ${describe(value)}`);
}

/**
 * Throws `invalid_transcript` unless `value` is an array of normalized messages, naming the first
 * message that is not one and the converter to use.
 *
 * @example
 * requireMessages(body.messages, 'splitTurns'); // throws: message 2 has "tool_calls", … pass the messages of fromOpenAIChat(body)
 */
export function requireMessages(value: unknown, call: string): asserts value is Message[] {
  if (!Array.isArray(value))
    throw new SpillwayError(
      'invalid_transcript',
      `${call} takes an array of normalized messages; got ${describe(value)}`,
    );
  // The walk checks each message once, and a history it walked before only for what was appended.
  indexTranscript(value, call);
}

/** Which wire format a body that is not normalized looks like: Anthropic's has `system` or its blocks. */
function wireFormatOf(value: Record<string, unknown>): 'openai' | 'anthropic' {
  if ('system' in value) return 'anthropic';
  const messages = Array.isArray(value.messages) ? value.messages : [];
  const anthropicBlock = messages.some(
    (message) =>
      Array.isArray((message as { content?: unknown } | null)?.content) &&
      (message as { content: unknown[] }).content.some(
        (part) => WIRE_BLOCKS.get((part as { type?: unknown } | null)?.type) === 'anthropic',
      ),
  );
  return anthropicBlock ? 'anthropic' : 'openai';
}

/** What is wrong with a request's own fields (besides its messages), or `undefined`. */
function requestFieldProblem(value: Record<string, unknown>, requireExtra: boolean): string | undefined {
  if (value.format !== undefined && !REQUEST_FORMATS.includes(value.format as RequestFormat))
    return `request.format must be one of ${REQUEST_FORMATS.map((format) => `"${format}"`).join(', ')}`;
  if (!Array.isArray(value.tools)) return 'request.tools must be an array of tool definitions ([] for none)';
  if (!value.tools.every((tool) => isPlainObject(tool) && typeof tool.name === 'string'))
    return 'every tool definition needs a string name';
  if (value.model !== undefined && typeof value.model !== 'string')
    return 'request.model must be a model id string';
  const maxTokens = value.maxTokens;
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && (maxTokens as number) >= 0))
    return 'request.maxTokens must be a whole number of tokens';
  if (value.extra === undefined ? requireExtra : !isPlainObject(value.extra))
    return 'request.extra must be an object of the wire fields to keep ({} for none)';
  return undefined;
}

/**
 * Throws unless `value` is a normalized {@link ChatRequest}: `invalid_argument` for something that is
 * no object, `invalid_transcript` for a wire body (with the converter to call) or a request whose
 * fields are not what the converters make. `extra` may be missing unless `requireExtra` (the
 * converters that write a wire body read it).
 *
 * @example
 * requireChatRequest(body, 'fit'); // throws: fit takes a normalized request, not a wire body; pass fromOpenAIChat(body)
 */
export function requireChatRequest(
  given: unknown,
  call: string,
  { requireExtra = false }: { requireExtra?: boolean } = {},
): asserts given is ChatRequest {
  requireObject(
    given,
    call,
    'a normalized request (fromOpenAIChat(body), fromAnthropic(body) or readRequest(body))',
  );
  const value = given as Record<string, unknown>;
  const wireField = WIRE_REQUEST_FIELDS.find((field) => field in value);
  if (wireField !== undefined || (value.format === undefined && !('tools' in value))) {
    const format = wireFormatOf(value);
    throw new SpillwayError(
      'invalid_transcript',
      `${call} takes a normalized request, not a wire body${wireField ? ` (it has "${wireField}")` : ''}; pass ${conversion(format)}, or readRequest(body) to detect the format`,
    );
  }
  requireMessages(value.messages, `${call}: request.messages`);
  const problem = requestFieldProblem(value, requireExtra);
  if (problem !== undefined) throw new SpillwayError('invalid_transcript', `${call}: ${problem}`);
}

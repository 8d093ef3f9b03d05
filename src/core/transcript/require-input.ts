/**
 * @module
 * Checks at the library's entry points: a caller who passes `null`, a wire body where a normalized
 * request belongs (`fit(body)` instead of `fit(fromOpenAIChat(body))`), or messages in a wire shape
 * gets a `SpillwayError` saying what to pass, never a `TypeError` from deep inside.
 */
import { SpillwayError } from '../errors/index.js';
import { type ChatRequest, type Message, REQUEST_FORMATS, type RequestFormat } from './types.js';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** OpenAI Chat wire fields a normalized message never has. */
const OPENAI_MESSAGE_FIELDS = ['tool_calls', 'tool_call_id', 'function_call'];
/** Anthropic Messages and OpenAI wire content blocks a normalized message never has. */
const WIRE_BLOCKS = new Map<unknown, 'openai' | 'anthropic'>([
  ['tool_use', 'anthropic'],
  ['tool_result', 'anthropic'],
  ['thinking', 'anthropic'],
  ['image_url', 'openai'],
  ['input_audio', 'openai'],
]);
/** Request fields of the wire formats; a normalized request keeps them under `extra` or `maxTokens`. */
const WIRE_REQUEST_FIELDS = ['max_tokens', 'max_completion_tokens', 'system', 'tool_choice'];

/** A short description of what a caller passed. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'string'
    ? 'a string'
    : `${typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`}`;
}

function conversion(format: 'openai' | 'anthropic'): string {
  return format === 'anthropic' ? 'fromAnthropic(body)' : 'fromOpenAIChat(body)';
}

/** Throws `invalid_argument` unless `value` is a plain object; `expected` says what to pass. */
export function requireObject(value: unknown, call: string, expected: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SpillwayError('invalid_argument', `${call} takes ${expected}; got ${describe(value)}`);
}

const PART_TYPES = new Set(['text', 'reasoning', 'image', 'opaque']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is wrong with one content part, or `undefined`. */
function partProblem(part: unknown): string | undefined {
  if (!isPlainObject(part)) return `a content part that is ${describe(part)}`;
  const type = part.type;
  const format = WIRE_BLOCKS.get(type);
  if (format !== undefined)
    return `a "${type}" block, from the ${format} wire format; pass the messages of ${conversion(format)}`;
  if (typeof type !== 'string' || !PART_TYPES.has(type))
    return `a content part of type ${JSON.stringify(type)}; parts are text, reasoning, image or opaque`;
  if ((type === 'text' || type === 'reasoning') && typeof part.text !== 'string')
    return `a ${type} part without a string text`;
  if (part.extra !== undefined && !isPlainObject(part.extra))
    return 'a content part whose extra is not an object';
  return undefined;
}

/** What is wrong with an assistant message's tool calls, or `undefined`. */
function toolCallsProblem(calls: unknown): string | undefined {
  if (calls === undefined) return undefined;
  if (!Array.isArray(calls)) return `toolCalls that is ${describe(calls)}, not an array`;
  for (const call of calls) {
    if (!isPlainObject(call)) return `a tool call that is ${describe(call)}`;
    for (const field of ['id', 'name', 'arguments'] as const)
      if (typeof call[field] !== 'string') return `a tool call whose ${field} is not a string`;
    if (call.extra !== undefined && !isPlainObject(call.extra))
      return 'a tool call whose extra is not an object';
  }
  return undefined;
}

/** What is wrong with one message, or `undefined`: a wire shape, a missing role, content or id. */
function messageProblem(message: unknown, index: number): string | undefined {
  if (!isPlainObject(message)) return `message ${index} is ${describe(message)}, not a message object`;
  const wireField = OPENAI_MESSAGE_FIELDS.find((field) => field in message);
  if (wireField !== undefined)
    return `message ${index} has "${wireField}", a field of the OpenAI wire format; pass the messages of fromOpenAIChat(body)`;
  if (typeof message.role !== 'string' || !ROLES.has(message.role))
    return `message ${index} has role ${JSON.stringify(message.role)}; normalized messages are system, user, assistant or tool (fromOpenAIChat(body) and fromAnthropic(body) make them)`;
  const content = message.content;
  if (typeof content !== 'string' && !Array.isArray(content))
    return `message ${index} has content that is ${describe(content)}; use a string or an array of parts`;
  if (Array.isArray(content))
    for (const part of content) {
      const problem = partProblem(part);
      if (problem !== undefined) return `message ${index} has ${problem}`;
    }
  if (message.role === 'tool' && typeof message.toolCallId !== 'string')
    return `message ${index} is a tool result without a string toolCallId`;
  const calls = message.role === 'assistant' ? toolCallsProblem(message.toolCalls) : undefined;
  if (calls !== undefined) return `message ${index} has ${calls}`;
  if (message.extra !== undefined && !isPlainObject(message.extra))
    return `message ${index} has an extra that is not an object`;
  return undefined;
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
  for (let index = 0; index < value.length; index++) {
    const message = value[index];
    if (typeof message === 'object' && message !== null && CHECKED.has(message)) continue;
    const problem = messageProblem(message, index);
    if (problem !== undefined)
      throw new SpillwayError('invalid_transcript', `${call}: ${problem}`, { data: { messageIndex: index } });
    CHECKED.add(message as object);
  }
}

/**
 * Message objects already found well-formed: a loop passes the same objects on every send, so each is
 * checked once, not once per send (estimates are cached per message object on the same terms).
 */
const CHECKED = new WeakSet<object>();

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

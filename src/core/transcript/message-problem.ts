/**
 * @module
 * What is wrong with one normalized message, said so that the caller knows what to pass instead (a
 * wire shape names its converter).
 */
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** OpenAI Chat wire fields a normalized message never has. */
const OPENAI_MESSAGE_FIELDS = ['tool_calls', 'tool_call_id', 'function_call'];
/** Anthropic Messages and OpenAI wire content blocks a normalized message never has. */
export const WIRE_BLOCKS = new Map<unknown, 'openai' | 'anthropic'>([
  ['tool_use', 'anthropic'],
  ['tool_result', 'anthropic'],
  ['thinking', 'anthropic'],
  ['image_url', 'openai'],
  ['input_audio', 'openai'],
]);
/** A short description of what a caller passed. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'string'
    ? 'a string'
    : `${typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`}`;
}

export function conversion(format: 'openai' | 'anthropic'): string {
  return format === 'anthropic' ? 'fromAnthropic(body)' : 'fromOpenAIChat(body)';
}

const PART_TYPES = new Set(['text', 'reasoning', 'image', 'opaque']);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
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
export function messageProblem(message: unknown, index: number): string | undefined {
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

/**
 * @module
 * The OpenAI Responses API (`POST /v1/responses`) read into the normalized transcript and written
 * back. `instructions` becomes a leading system message; consecutive items the model produced
 * (assistant messages, reasoning, tool calls, server-side tool items) make one assistant message, so
 * that a `function_call` and its `function_call_output` stay in one turn; each `*_call_output` is a
 * tool message. Every item that is not changed is written back as the very object it was read from;
 * reasoning items (with their `encrypted_content`) and items Spillway does not know are kept verbatim.
 */
import { ContentMemo } from './content-memo.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import type {
  AssistantMessage,
  ChatRequest,
  Content,
  ContentPart,
  Message,
  ToolCall,
  ToolDefinition,
  ToolMessage,
} from './types.js';
import {
  extraFields,
  type ItemRead,
  invalid,
  isRecord,
  originalOf,
  portableFields,
  readObjectBody,
  readItems as readRemembered,
  readToolList,
  rememberOriginal,
  withoutExtras,
} from './wire.js';
import type { ResponsesBody } from './wire-bodies.js';

const FORMAT = 'responses';

/** Item types that call a tool and carry no `name` of their own (the type names the tool). */
const CALL_SUFFIX = '_call';
const OUTPUT_SUFFIX = '_call_output';

/**
 * Reads a Responses API request (`input` items or text, `instructions`, `tools`,
 * `max_output_tokens`) into the normalized transcript. Fields Spillway does not understand, such as
 * `previous_response_id`, `reasoning`, `store` and `include`, are kept and written back by
 * {@link toResponses}.
 *
 * @throws SpillwayError `invalid_transcript` naming the item index when the request is malformed.
 * @example
 * const request = fromResponses({ model: 'gpt-5', input: 'hi', max_output_tokens: 1_000 });
 */
export function fromResponses(body: unknown): ChatRequest {
  const wire = readObjectBody(body, 'the Responses request', 'an "input"');
  const messages: Message[] = [];
  if (typeof wire.instructions === 'string')
    messages.push({ role: 'system', content: wire.instructions, wire: { instructions: true } });
  if (typeof wire.input === 'string') {
    const message: Message = { role: 'user', content: wire.input, wire: { stringContent: true } };
    messages.push(message);
  } else if (Array.isArray(wire.input)) messages.push(...readItems(wire.input));
  else if (wire.input !== undefined && wire.input !== null)
    throw invalid('"input" must be a string or an array of input items');
  const known = ['model', 'input', 'tools', 'max_output_tokens'];
  if (typeof wire.instructions === 'string') known.push('instructions');
  const request: ChatRequest = {
    format: FORMAT,
    messages,
    tools: readTools(wire.tools),
    extra: extraFields(wire, known) ?? {},
  };
  if (typeof wire.model === 'string') request.model = wire.model;
  const max = wire.max_output_tokens;
  if (max !== undefined && max !== null) {
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 0)
      throw invalid(`max_output_tokens must be a non-negative integer, got ${JSON.stringify(max)}`);
    request.maxTokens = max;
  }
  return request;
}

/**
 * Writes a normalized request as a Responses API request: a leading `instructions` message back in
 * `instructions`, every message as the items it was read from when unchanged, `max_output_tokens`.
 */
export function toResponses(request: ChatRequest): ResponsesBody {
  const body: Record<string, unknown> = {};
  if (request.model !== undefined) body.model = request.model;
  const messages = request.format === FORMAT ? request.messages : request.messages.map(withoutExtras);
  const first = messages[0];
  const rest = first?.role === 'system' && first.wire?.instructions ? messages.slice(1) : messages;
  if (rest !== messages && first) body.instructions = textOf(first.content);
  const only = rest[0];
  body.input =
    rest.length === 1 && only?.role === 'user' && only.wire?.stringContent && typeof only.content === 'string'
      ? only.content
      : rest.flatMap(writeMessage);
  Object.assign(body, request.format === FORMAT ? request.extra : portableFields(request.extra));
  if (request.tools.length > 0) body.tools = request.tools.map(writeTool);
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  // Written from the normalized messages field by field: the shape the type describes.
  return body as ResponsesBody;
}

/** Items read before, found again by content: a resent history is not read again. */
const READ_UNITS = new ContentMemo<ItemRead<Message>>();

/**
 * The items of `input`, grouped into normalized messages: a run of consecutive items the model
 * produced is one assistant message, any other item a message of its own. Each unit is read once
 * and found again by content when a later request resends it.
 */
function readItems(items: unknown[]): Message[] {
  const units: Array<{ input: unknown; start: number }> = [];
  let group: unknown[] | undefined;
  items.forEach((item, index) => {
    if (!isRecord(item)) throw invalid(`input item ${index} is not an object`, { messageIndex: index });
    if (startsOwnMessage(item)) {
      group = undefined;
      units.push({ input: item, start: index });
      return;
    }
    if (group === undefined) {
      group = [];
      units.push({ input: group, start: index });
    }
    group.push(item);
  });
  return readRemembered(
    READ_UNITS,
    units.map((unit) => unit.input),
    'the Responses request',
    (input, unit) => {
      const start = units[unit]?.start ?? 0;
      return Array.isArray(input) ? readGroup(input as Record<string, unknown>[]) : readOwnItem(input, start);
    },
    // The whole body was checked for nesting before it was read; the groups add a level of their own.
    MAX_JSON_DEPTH,
  );
}

/** Whether an item is a message of its own (a user or system message, a tool output). */
function startsOwnMessage(item: Record<string, unknown>): boolean {
  const type = typeof item.type === 'string' ? item.type : 'message';
  return (type === 'message' && item.role !== 'assistant') || type.endsWith(OUTPUT_SUFFIX);
}

function readOwnItem(input: unknown, index: number): Message {
  const item = input as Record<string, unknown>;
  const type = typeof item.type === 'string' ? item.type : 'message';
  return type === 'message' ? readMessageItem(item, index) : readOutputItem(item, index);
}

/** Consecutive items the model produced (messages, reasoning, tool calls) as one assistant message. */
function readGroup(items: Record<string, unknown>[]): Message {
  const parts: ContentPart[] = [];
  const calls: ToolCall[] = [];
  for (const item of items) {
    const type = typeof item.type === 'string' ? item.type : 'message';
    if (typeof item.call_id === 'string' && type.endsWith(CALL_SUFFIX)) calls.push(readCall(item, type));
    else parts.push(readAssistantPart(item, type));
  }
  const message: AssistantMessage = { role: 'assistant', content: parts };
  if (calls.length > 0) message.toolCalls = calls;
  rememberOriginal(message, FORMAT, items);
  return message;
}

function readMessageItem(item: Record<string, unknown>, index: number): Message {
  const role = item.role;
  if (role !== 'user' && role !== 'system' && role !== 'developer')
    throw invalid(
      `input item ${index} has role ${JSON.stringify(role)}; use user, assistant, system or developer`,
      { messageIndex: index },
    );
  const content = readContent(item.content, index);
  const message: Message = role === 'user' ? { role: 'user', content } : { role: 'system', content };
  if (role === 'developer') message.wire = { developer: true };
  const extra = extraFields(item, ['role', 'content']);
  if (extra) message.extra = extra;
  rememberOriginal(message, FORMAT, item);
  return message;
}

function readContent(value: unknown, index: number): Content {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value))
    throw invalid(`input item ${index} has content that is neither a string nor an array of parts`, {
      messageIndex: index,
    });
  return value.map((part): ContentPart => {
    if (isRecord(part) && typeof part.text === 'string') {
      const extra = extraFields(part, ['text']);
      return extra ? { type: 'text', text: part.text, extra } : { type: 'text', text: part.text };
    }
    if (isRecord(part) && part.type === 'input_image') return { type: 'image', value: part };
    return { type: 'opaque', value: part };
  });
}

function readOutputItem(item: Record<string, unknown>, index: number): ToolMessage {
  if (typeof item.call_id !== 'string')
    throw invalid(`input item ${index} (${String(item.type)}) has no string "call_id"`, {
      messageIndex: index,
    });
  const output = item.output;
  const content: Content =
    typeof output === 'string' ? output : Array.isArray(output) ? readContent(output, index) : '';
  const message: ToolMessage = { role: 'tool', toolCallId: item.call_id, content };
  const extra = extraFields(item, ['call_id', 'output']);
  if (extra) message.extra = extra;
  if (output !== undefined && typeof output !== 'string' && !Array.isArray(output))
    message.extra = { ...message.extra, output };
  rememberOriginal(message, FORMAT, item);
  return message;
}

/** A tool call item: `function_call`, `custom_tool_call` (free-form `input`) or a built-in `*_call`. */
function readCall(item: Record<string, unknown>, type: string): ToolCall {
  const id = item.call_id as string;
  const name = typeof item.name === 'string' ? item.name : type;
  const text = (value: unknown): string =>
    typeof value === 'string' ? value : value === undefined ? '{}' : JSON.stringify(value);
  const argumentField =
    type === 'function_call' ? 'arguments' : type === 'custom_tool_call' ? 'input' : 'action';
  const call: ToolCall = { id, name, arguments: text(item[argumentField]) };
  const extra = extraFields(item, ['call_id', 'name', argumentField]);
  if (extra) call.extra = extra;
  rememberOriginal(call, FORMAT, item);
  return call;
}

function readAssistantPart(item: Record<string, unknown>, type: string): ContentPart {
  if (type === 'message') {
    const parts = Array.isArray(item.content) ? item.content : [{ text: item.content }];
    const text = parts
      .map((part) => (isRecord(part) ? (part.text ?? part.refusal) : undefined))
      .filter((value): value is string => typeof value === 'string')
      .join('');
    const part: ContentPart = { type: 'text', text };
    rememberOriginal(part, FORMAT, item);
    return part;
  }
  if (type === 'reasoning') {
    const summary = Array.isArray(item.summary) ? item.summary : [];
    const text = summary
      .map((entry) => (isRecord(entry) && typeof entry.text === 'string' ? entry.text : ''))
      .join('\n');
    const extra = extraFields(item, ['summary']) ?? {};
    const part: ContentPart = { type: 'reasoning', text, extra };
    rememberOriginal(part, FORMAT, item);
    return part;
  }
  return { type: 'opaque', value: item };
}

function readTools(value: unknown): ToolDefinition[] {
  return readToolList(
    value,
    FORMAT,
    (tool) => ({
      name: tool.name ?? tool.type,
      description: tool.description,
      parameters: tool.parameters ?? tool.format,
    }),
    (index) =>
      `tool ${index} has neither a "name" nor a "type"; tools look like {"type":"function","name":…}`,
  );
}

function textOf(content: Content): string {
  if (typeof content === 'string') return content;
  return content.map((part) => ('text' in part ? part.text : '')).join('\n');
}

function writeMessage(message: Message): unknown[] {
  const original = originalOf(message, FORMAT);
  if (original !== undefined) return Array.isArray(original) ? original : [original];
  switch (message.role) {
    case 'system':
    case 'user': {
      const role = message.role === 'user' ? 'user' : message.wire?.developer ? 'developer' : 'system';
      return [{ role, content: writeContent(message.content, 'input_text'), ...message.extra }];
    }
    case 'tool': {
      const { type = 'function_call_output', output: kept, ...extra } = message.extra ?? {};
      const output =
        kept !== undefined && message.content === ''
          ? kept
          : typeof message.content === 'string'
            ? message.content
            : writeContent(message.content, 'input_text');
      return [{ type, call_id: message.toolCallId, output, ...extra }];
    }
    case 'assistant':
      return [...writeAssistantParts(message.content), ...(message.toolCalls ?? []).map(writeCall)];
  }
}

function writeContent(content: Content, textType: string): unknown {
  if (typeof content === 'string') return content;
  return content.map((part) => {
    if (part.type === 'text' || part.type === 'reasoning')
      return { type: textType, ...part.extra, text: part.text };
    return part.value;
  });
}

function writeAssistantParts(content: Content): unknown[] {
  if (typeof content === 'string')
    return content === '' ? [] : [{ type: 'message', role: 'assistant', content: [outputText(content)] }];
  return content.map((part) => {
    const original = originalOf(part, FORMAT);
    if (original !== undefined) return original;
    switch (part.type) {
      case 'text':
        return { type: 'message', role: 'assistant', content: [outputText(part.text)] };
      case 'reasoning':
        return { type: 'reasoning', ...part.extra, summary: [{ type: 'summary_text', text: part.text }] };
      default:
        return part.value;
    }
  });
}

function outputText(text: string): Record<string, unknown> {
  return { type: 'output_text', text, annotations: [] };
}

function writeCall(call: ToolCall): unknown {
  const original = originalOf(call, FORMAT);
  if (original !== undefined) return original;
  const { type = 'function_call', ...extra } = call.extra ?? {};
  if (type === 'function_call')
    return { type, call_id: call.id, name: call.name, arguments: call.arguments, ...extra };
  if (type === 'custom_tool_call')
    return { type, call_id: call.id, name: call.name, input: call.arguments, ...extra };
  let action: unknown;
  try {
    action = JSON.parse(call.arguments);
  } catch {
    action = call.arguments;
  }
  return { type, call_id: call.id, action, ...extra };
}

function writeTool(tool: ToolDefinition): unknown {
  const original = originalOf(tool, FORMAT);
  if (original !== undefined) return original;
  const body: Record<string, unknown> = { type: 'function', name: tool.name };
  if (tool.description !== undefined) body.description = tool.description;
  body.parameters = tool.parameters ?? { type: 'object', properties: {} };
  return body;
}

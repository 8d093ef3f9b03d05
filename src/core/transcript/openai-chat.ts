import { ContentMemo } from './content-memo.js';
import { requireChatRequest } from './require-input.js';
import type {
  AssistantMessage,
  ChatRequest,
  Content,
  ContentPart,
  Message,
  ToolCall,
  ToolDefinition,
} from './types.js';
import {
  extraFields,
  type ItemRead,
  invalid,
  isRecord,
  originalOf,
  portableFields,
  readBody,
  readItems,
  readToolList,
  rememberOriginal,
  withoutExtras,
} from './wire.js';
import type { OpenAIChatBody } from './wire-bodies.js';

const FORMAT = 'openai';

/** Messages read before, found again by content: a resent history is not read again. */
const READ_MESSAGES = new ContentMemo<ItemRead<Message>>();

/**
 * Reads an OpenAI Chat Completions request (`messages`, `tools`, `max_tokens` or
 * `max_completion_tokens`) into the normalized transcript. Fields Spillway does not understand are
 * kept and written back by {@link toOpenAIChat}.
 *
 * @throws SpillwayError `invalid_transcript` naming the message index when the request is malformed.
 * @example
 * const request = fromOpenAIChat(JSON.parse(body));
 */
export function fromOpenAIChat(body: unknown): ChatRequest {
  const what = 'the OpenAI Chat request';
  const wire = readBody(body, what, { itemsChecked: true });
  const messages = readItems(READ_MESSAGES, wire.messages as unknown[], what, readMessage);
  const tools = readTools(wire.tools);
  const useCompletion = wire.max_completion_tokens !== undefined && wire.max_completion_tokens !== null;
  const rawMax = useCompletion ? wire.max_completion_tokens : wire.max_tokens;
  const extra =
    extraFields(wire, [
      'messages',
      'tools',
      'model',
      useCompletion ? 'max_completion_tokens' : 'max_tokens',
    ]) ?? {};
  const request: ChatRequest = { format: FORMAT, messages, tools, extra };
  if (typeof wire.model === 'string') request.model = wire.model;
  if (rawMax !== undefined && rawMax !== null) {
    if (typeof rawMax !== 'number' || !Number.isInteger(rawMax) || rawMax < 0) {
      throw invalid(
        `${useCompletion ? 'max_completion_tokens' : 'max_tokens'} must be a non-negative integer, got ${JSON.stringify(rawMax)}`,
      );
    }
    request.maxTokens = rawMax;
    request.maxTokensField = useCompletion ? 'max_completion_tokens' : 'max_tokens';
  }
  return request;
}

/**
 * Writes a normalized request as an OpenAI Chat Completions request. Messages read by
 * {@link fromOpenAIChat} and left unchanged are written back exactly as they came.
 */
export function toOpenAIChat(request: ChatRequest): OpenAIChatBody {
  requireChatRequest(request, 'toOpenAIChat', { requireExtra: true });
  const body: Record<string, unknown> = {};
  if (request.model !== undefined) body.model = request.model;
  const messages = request.format === FORMAT ? request.messages : request.messages.map(withoutExtras);
  body.messages = messages.map(writeMessage);
  Object.assign(body, request.format === FORMAT ? request.extra : portableFields(request.extra));
  if (request.tools.length > 0) body.tools = request.tools.map(writeTool);
  if (request.maxTokens !== undefined) {
    const field = request.maxTokensField ?? 'max_tokens';
    body[field] = request.maxTokens;
    // A request that carried both fields gets both lowered, so neither asks for more than was fitted.
    const other = field === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
    if (typeof body[other] === 'number') body[other] = Math.min(body[other] as number, request.maxTokens);
  }
  // Written from the normalized messages field by field: the shape the type describes.
  return body as OpenAIChatBody;
}

/**
 * Reads one OpenAI Chat message (a request message or a response's `choices[0].message`).
 *
 * @throws SpillwayError `invalid_transcript` when the message is malformed.
 */
export function readOpenAIMessage(value: unknown, index = 0): Message {
  return readMessage(value, index);
}

function readMessage(value: unknown, index: number): Message {
  if (!isRecord(value))
    throw invalid(`message ${index} is not an object; each message needs a "role"`, { messageIndex: index });
  const role = value.role;
  let message: Message;
  switch (role) {
    case 'system':
    case 'developer': {
      message = { role: 'system', content: readContent(value.content, index, false) };
      if (role === 'developer') message.wire = { developer: true };
      break;
    }
    case 'user':
      message = { role: 'user', content: readContent(value.content, index, false) };
      break;
    case 'assistant':
      message = readAssistant(value, index);
      break;
    case 'tool': {
      if (typeof value.tool_call_id !== 'string') {
        throw invalid(
          `tool message ${index} has no string "tool_call_id"; set it to the id of the call it answers`,
          { messageIndex: index },
        );
      }
      message = {
        role: 'tool',
        toolCallId: value.tool_call_id,
        content: readContent(value.content, index, false),
      };
      break;
    }
    case 'function':
      throw invalid(
        `message ${index} uses the deprecated role "function"; send it as a "tool" message with a tool_call_id`,
        { messageIndex: index },
      );
    default:
      throw invalid(
        `message ${index} has unknown role ${JSON.stringify(role)}; use system, developer, user, assistant or tool`,
        { messageIndex: index },
      );
  }
  const extra = extraFields(value, ['role', 'content', 'tool_calls', 'tool_call_id']);
  if (extra) message.extra = extra;
  rememberOriginal(message, FORMAT, value);
  return message;
}

function readAssistant(value: Record<string, unknown>, index: number): AssistantMessage {
  const message: AssistantMessage = { role: 'assistant', content: readContent(value.content, index, true) };
  if (value.content === null || value.content === undefined) message.wire = { nullContent: true };
  if (value.tool_calls !== undefined && value.tool_calls !== null) {
    if (!Array.isArray(value.tool_calls))
      throw invalid(`assistant message ${index} has "tool_calls" that is not an array`, {
        messageIndex: index,
      });
    message.toolCalls = value.tool_calls.map((call, callIndex) => readToolCall(call, index, callIndex));
  }
  return message;
}

function readToolCall(value: unknown, index: number, callIndex: number): ToolCall {
  const where = `tool call ${callIndex} of message ${index}`;
  if (!isRecord(value) || !isRecord(value.function))
    throw invalid(`${where} needs an object "function" with "name" and "arguments"`, { messageIndex: index });
  const fn = value.function;
  if (typeof fn.name !== 'string')
    throw invalid(`${where} has no string function name`, { messageIndex: index });
  if (typeof value.id !== 'string')
    throw invalid(`${where} (${fn.name}) has no string "id"; give every tool call a unique id`, {
      messageIndex: index,
    });
  const args = fn.arguments ?? '';
  if (typeof args !== 'string')
    throw invalid(`${where} (${value.id}) has arguments that are not a JSON string`, { messageIndex: index });
  const call: ToolCall = { id: value.id, name: fn.name, arguments: args };
  // `type: "function"` is implied by the shape; any other type is kept.
  const extra = extraFields(
    value,
    value.type === 'function' ? ['id', 'type', 'function'] : ['id', 'function'],
  );
  const fnExtra = extraFields(fn, ['name', 'arguments']);
  if (extra || fnExtra) call.extra = { ...extra, ...(fnExtra ? { function: fnExtra } : {}) };
  return call;
}

function readContent(value: unknown, index: number, nullable: boolean): Content {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) {
    if (nullable) return '';
    throw invalid(`message ${index} has no content; send a string or an array of content parts`, {
      messageIndex: index,
    });
  }
  if (!Array.isArray(value))
    throw invalid(`message ${index} has content that is neither a string nor an array of parts`, {
      messageIndex: index,
    });
  return value.map((part, partIndex): ContentPart => {
    if (!isRecord(part))
      throw invalid(`content part ${partIndex} of message ${index} is not an object`, {
        messageIndex: index,
      });
    if (part.type === 'text' && typeof part.text === 'string') {
      const extra = extraFields(part, ['type', 'text']);
      return extra ? { type: 'text', text: part.text, extra } : { type: 'text', text: part.text };
    }
    if (part.type === 'image_url') return { type: 'image', value: part };
    return { type: 'opaque', value: part };
  });
}

function readTools(value: unknown): ToolDefinition[] {
  return readToolList(
    value,
    FORMAT,
    (tool) => {
      const fn = isRecord(tool.function) ? tool.function : isRecord(tool.custom) ? tool.custom : undefined;
      return { name: fn?.name ?? tool.name, description: fn?.description, parameters: fn?.parameters };
    },
    (index) =>
      `tool ${index} has no function name; tools look like {"type":"function","function":{"name":…}}`,
  );
}

function writeMessage(message: Message): unknown {
  const original = originalOf(message, FORMAT);
  if (original !== undefined) return original;
  const content = writeContent(message.content);
  switch (message.role) {
    case 'system':
      return { role: message.wire?.developer ? 'developer' : 'system', content, ...message.extra };
    case 'user':
      return { role: 'user', content, ...message.extra };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content, ...message.extra };
    case 'assistant': {
      const empty =
        typeof message.content === 'string' ? message.content === '' : message.content.length === 0;
      const body: Record<string, unknown> = {
        role: 'assistant',
        content:
          empty && (message.wire?.nullContent || (message.toolCalls?.length ?? 0) > 0) ? null : content,
      };
      if (message.toolCalls && message.toolCalls.length > 0)
        body.tool_calls = message.toolCalls.map(writeToolCall);
      return { ...body, ...message.extra };
    }
  }
}

function writeToolCall(call: ToolCall): unknown {
  const { function: fnExtra, ...extra } = call.extra ?? {};
  return {
    id: call.id,
    type: 'function',
    ...extra,
    function: { ...(isRecord(fnExtra) ? fnExtra : {}), name: call.name, arguments: call.arguments },
  };
}

function writeContent(content: Content): unknown {
  if (typeof content === 'string') return content;
  return content.map((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text, ...part.extra };
      case 'reasoning':
        // Chat Completions has no reasoning part; the text is kept so nothing is lost.
        return { type: 'text', text: part.text };
      default:
        return part.value;
    }
  });
}

function writeTool(tool: ToolDefinition): unknown {
  const original = originalOf(tool, FORMAT);
  if (original !== undefined) return original;
  const fn: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) fn.description = tool.description;
  fn.parameters = tool.parameters ?? { type: 'object', properties: {} };
  return { type: 'function', function: fn };
}

import { ContentMemo } from './content-memo.js';
import { requireChatRequest } from './require-input.js';
import { fitThinkingBudget } from './thinking-budget.js';
import type {
  AssistantMessage,
  ChatRequest,
  Content,
  ContentPart,
  Message,
  SystemMessage,
  ToolCall,
  ToolDefinition,
  ToolMessage,
  UserMessage,
} from './types.js';
import {
  argumentsText,
  argumentsValue,
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
import type { AnthropicMessagesBody } from './wire-bodies.js';

const FORMAT = 'anthropic';

/**
 * Reads an Anthropic Messages request (`system`, `messages` with `tool_use` / `tool_result` blocks,
 * `tools`, `max_tokens`) into the normalized transcript. Each `tool_result` block becomes its own
 * tool message, so pairing and pruning see one result per call; {@link toAnthropic} joins them back.
 *
 * @throws SpillwayError `invalid_transcript` naming the message index when the request is malformed.
 * @example
 * const request = fromAnthropic(JSON.parse(body));
 */
export function fromAnthropic(body: unknown): ChatRequest {
  const what = 'the Anthropic Messages request';
  const wire = readBody(body, what, { itemsChecked: true });
  const messages: Message[] = [...readSystemOnce(wire.system)];
  for (const pieces of readItems(READ_MESSAGES, wire.messages as unknown[], what, readMessage))
    messages.push(...pieces);
  const request: ChatRequest = {
    format: FORMAT,
    messages,
    tools: readTools(wire.tools),
    extra: extraFields(wire, ['model', 'system', 'messages', 'tools', 'max_tokens']) ?? {},
  };
  if (typeof wire.model === 'string') request.model = wire.model;
  if (wire.max_tokens !== undefined) {
    if (typeof wire.max_tokens !== 'number' || !Number.isInteger(wire.max_tokens) || wire.max_tokens < 0) {
      throw invalid(`max_tokens must be a non-negative integer, got ${JSON.stringify(wire.max_tokens)}`);
    }
    request.maxTokens = wire.max_tokens;
    request.maxTokensField = 'max_tokens';
    READ_CAPS.set(request.extra, wire.max_tokens);
  }
  return request;
}

/**
 * The `max_tokens` each request was read with, keyed by its `extra` object (which every copy of
 * the request made with a spread shares): a thinking budget is refitted only when the cap changed,
 * so a request sent as it came keeps its own `thinking`, valid or not.
 */
const READ_CAPS = new WeakMap<object, number>();

function readCapOf(request: ChatRequest): number | undefined {
  return READ_CAPS.get(request.extra);
}

/**
 * Writes a normalized request as an Anthropic Messages request. Leading system messages become
 * `system`; consecutive tool results share one user message, as the API requires; a thinking budget
 * that the reply cap no longer leaves room for is lowered or dropped ({@link fitThinkingBudget}).
 */
export function toAnthropic(request: ChatRequest): AnthropicMessagesBody {
  requireChatRequest(request, 'toAnthropic', { requireExtra: true });
  const body: Record<string, unknown> = {};
  if (request.model !== undefined) body.model = request.model;
  let first = 0;
  const systems: SystemMessage[] = [];
  const messages = request.format === FORMAT ? request.messages : request.messages.map(withoutExtras);
  while (messages[first]?.role === 'system') systems.push(messages[first++] as SystemMessage);
  const system = writeSystem(systems);
  if (system !== undefined) body.system = system;
  body.messages = writeMessages(messages.slice(first));
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  Object.assign(body, request.format === FORMAT ? request.extra : portableFields(request.extra));
  if (
    request.maxTokens !== undefined &&
    body.thinking !== undefined &&
    readCapOf(request) !== request.maxTokens
  ) {
    const thinking = fitThinkingBudget(body.thinking, request.maxTokens);
    if (thinking === undefined) delete body.thinking;
    else body.thinking = thinking;
  }
  if (request.tools.length > 0) body.tools = request.tools.map(writeTool);
  // Written from the normalized messages field by field: the shape the type describes.
  return body as AnthropicMessagesBody;
}

/** Messages read before, found again by content: a resent history is not read again. */
const READ_MESSAGES = new ContentMemo<ItemRead<Message[]>>();
/** System prompts read before (a coding agent's runs to tens of kilobytes, the same every request). */
const READ_SYSTEMS = new ContentMemo<ItemRead<SystemMessage[]>>({ maxEntries: 256 });

function readSystemOnce(value: unknown): SystemMessage[] {
  if (value === undefined || value === null) return [];
  // The body's depth check covered `system`; the list around it adds a level.
  return readItems(READ_SYSTEMS, [value], 'the system prompt', readSystem)[0] as SystemMessage[];
}

function readSystem(value: unknown): SystemMessage[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [{ role: 'system', content: value }];
  if (!Array.isArray(value)) throw invalid('"system" must be a string or an array of text blocks');
  return [{ role: 'system', content: readBlocks(value, 'system') }];
}

function readMessage(value: unknown, index: number): Message[] {
  if (!isRecord(value))
    throw invalid(`message ${index} is not an object; each message needs a "role"`, { messageIndex: index });
  const extra = extraFields(value, ['role', 'content']);
  if (value.role === 'assistant') {
    const message = readAssistant(value.content, index);
    if (extra) message.extra = extra;
    rememberOriginal(message, FORMAT, value);
    return [message];
  }
  if (value.role !== 'user') {
    throw invalid(
      `message ${index} has role ${JSON.stringify(value.role)}; Anthropic messages are "user" or "assistant" (the system prompt goes in "system")`,
      { messageIndex: index },
    );
  }
  if (typeof value.content === 'string') {
    const message: UserMessage = { role: 'user', content: value.content };
    if (extra) message.extra = extra;
    rememberOriginal(message, FORMAT, value);
    return [message];
  }
  if (!Array.isArray(value.content))
    throw invalid(`message ${index} has content that is neither a string nor an array of blocks`, {
      messageIndex: index,
    });
  const out: Message[] = [];
  let pending: ContentPart[] | undefined;
  const flush = () => {
    if (!pending) return;
    const message: UserMessage = { role: 'user', content: pending };
    if (out.length > 0) message.wire = { attached: true };
    out.push(message);
    pending = undefined;
  };
  value.content.forEach((block, blockIndex) => {
    if (isRecord(block) && block.type === 'tool_result') {
      flush();
      const result = readToolResult(block, index, blockIndex);
      result.wire = { ...result.wire, attached: out.length > 0 };
      out.push(result);
      return;
    }
    pending ??= [];
    pending.push(readBlock(block, `block ${blockIndex} of message ${index}`));
  });
  flush();
  if (out.length === 0) out.push({ role: 'user', content: [] });
  // Unknown message-level fields ride on the first piece; writing back restores them on the message.
  const head = out[0] as Message;
  if (extra) head.wire = { ...head.wire, messageExtra: extra };
  if (out.length === 1 && head.role === 'user') rememberOriginal(head, FORMAT, value);
  return out;
}

function readToolResult(block: Record<string, unknown>, index: number, blockIndex: number): ToolMessage {
  if (typeof block.tool_use_id !== 'string') {
    throw invalid(`tool_result block ${blockIndex} of message ${index} has no string "tool_use_id"`, {
      messageIndex: index,
    });
  }
  const content: Content =
    block.content === undefined
      ? ''
      : typeof block.content === 'string'
        ? block.content
        : Array.isArray(block.content)
          ? readBlocks(block.content, `tool_result ${block.tool_use_id}`)
          : (() => {
              throw invalid(
                `tool_result ${block.tool_use_id} in message ${index} has content that is neither a string nor blocks`,
                { messageIndex: index },
              );
            })();
  const message: ToolMessage = { role: 'tool', toolCallId: block.tool_use_id, content };
  if (block.is_error === true) message.isError = true;
  const extra = extraFields(block, ['type', 'tool_use_id', 'content', 'is_error']);
  if (block.is_error === false) message.extra = { is_error: false };
  if (extra) message.extra = { ...message.extra, ...extra };
  if (block.content === undefined) message.wire = { noContent: true };
  return message;
}

/**
 * Reads the `content` of an Anthropic assistant message (a response's content blocks) into a
 * normalized assistant message.
 */
export function readAnthropicAssistant(content: unknown): AssistantMessage {
  return readAssistant(content, 0);
}

function readAssistant(value: unknown, index: number): AssistantMessage {
  if (typeof value === 'string') return { role: 'assistant', content: value };
  if (!Array.isArray(value))
    throw invalid(`message ${index} has content that is neither a string nor an array of blocks`, {
      messageIndex: index,
    });
  const parts: ContentPart[] = [];
  const calls: ToolCall[] = [];
  const positions: number[] = [];
  value.forEach((block, blockIndex) => {
    if (isRecord(block) && block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') {
        throw invalid(`tool_use block ${blockIndex} of message ${index} needs a string "id" and "name"`, {
          messageIndex: index,
        });
      }
      const call: ToolCall = { id: block.id, name: block.name, arguments: argumentsText(block.input) };
      const extra = extraFields(block, ['type', 'id', 'name', 'input']);
      if (extra) call.extra = extra;
      calls.push(call);
      positions.push(blockIndex);
      return;
    }
    parts.push(readBlock(block, `block ${blockIndex} of message ${index}`));
  });
  const message: AssistantMessage = { role: 'assistant', content: parts };
  if (calls.length > 0) {
    message.toolCalls = calls;
    const trailing = positions.every((position, callIndex) => position === parts.length + callIndex);
    if (!trailing) message.wire = { toolCallPositions: positions };
  }
  return message;
}

function readBlocks(blocks: unknown[], where: string): ContentPart[] {
  return blocks.map((block, blockIndex) => readBlock(block, `block ${blockIndex} of ${where}`));
}

function readBlock(block: unknown, where: string): ContentPart {
  if (!isRecord(block)) throw invalid(`${where} is not an object`);
  if (block.type === 'text' && typeof block.text === 'string') {
    const extra = extraFields(block, ['type', 'text']);
    return extra ? { type: 'text', text: block.text, extra } : { type: 'text', text: block.text };
  }
  if (block.type === 'thinking' && typeof block.thinking === 'string') {
    const extra = extraFields(block, ['type', 'thinking']);
    return extra
      ? { type: 'reasoning', text: block.thinking, extra }
      : { type: 'reasoning', text: block.thinking };
  }
  if (block.type === 'image') return { type: 'image', value: block };
  return { type: 'opaque', value: block };
}

function readTools(value: unknown): ToolDefinition[] {
  return readToolList(
    value,
    FORMAT,
    (tool) => ({ name: tool.name, description: tool.description, parameters: tool.input_schema }),
    (index) => `tool ${index} has no string "name"`,
  );
}

function writeSystem(systems: SystemMessage[]): unknown {
  if (systems.length === 0) return undefined;
  const only = systems[0] as SystemMessage;
  if (systems.length === 1 && typeof only.content === 'string') return only.content;
  return systems.flatMap((message) => writeBlocks(message.content));
}

function writeMessages(messages: Message[]): unknown[] {
  const out: Array<Record<string, unknown>> = [];
  let previous: Message | undefined;
  for (const message of messages) {
    const original = originalOf(message, FORMAT);
    if (original !== undefined) {
      out.push(original as Record<string, unknown>);
      previous = message;
      continue;
    }
    const last = out.at(-1);
    const joins =
      last !== undefined &&
      last.role === 'user' &&
      Array.isArray(last.content) &&
      (message.role === 'tool' || message.role === 'user') &&
      (message.wire?.attached ?? (message.role === 'tool' && previous?.role === 'tool'));
    if (message.role === 'tool') {
      const block = writeToolResult(message);
      if (joins) (last.content as unknown[]).push(block);
      else out.push({ role: 'user', content: [block], ...message.wire?.messageExtra });
    } else if (message.role === 'user' || message.role === 'system') {
      if (joins) (last.content as unknown[]).push(...writeBlocks(message.content));
      else {
        const content =
          message.role === 'system' ? writeBlocks(message.content) : writeUserContent(message.content);
        out.push({ role: 'user', content, ...message.extra, ...message.wire?.messageExtra });
      }
    } else {
      out.push(writeAssistant(message));
    }
    previous = message;
  }
  return out;
}

function writeUserContent(content: Content): unknown {
  return typeof content === 'string' ? content : writeBlocks(content);
}

function writeToolResult(message: ToolMessage): Record<string, unknown> {
  const block: Record<string, unknown> = { type: 'tool_result', tool_use_id: message.toolCallId };
  if (!(message.wire?.noContent && message.content === ''))
    block.content = typeof message.content === 'string' ? message.content : writeBlocks(message.content);
  if (message.isError) block.is_error = true;
  return { ...block, ...message.extra };
}

function writeAssistant(message: AssistantMessage): Record<string, unknown> {
  const calls = (message.toolCalls ?? []).map((call) => ({
    type: 'tool_use',
    id: call.id,
    name: call.name,
    input: argumentsValue(call.arguments),
    ...call.extra,
  }));
  if (calls.length === 0 && typeof message.content === 'string')
    return { role: 'assistant', content: message.content, ...message.extra };
  const blocks = writeBlocks(message.content);
  const positions = message.wire?.toolCallPositions;
  let content: unknown[];
  if (
    positions &&
    positions.length === calls.length &&
    positions.every((p) => p <= blocks.length + calls.length)
  ) {
    content = [...blocks];
    for (const [callIndex, position] of positions.entries()) content.splice(position, 0, calls[callIndex]);
  } else {
    content = [...blocks, ...calls];
  }
  return { role: 'assistant', content, ...message.extra };
}

function writeBlocks(content: Content): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text, ...part.extra };
      case 'reasoning':
        return { type: 'thinking', thinking: part.text, ...part.extra };
      default:
        return part.value;
    }
  });
}

function writeTool(tool: ToolDefinition): unknown {
  const original = originalOf(tool, FORMAT);
  if (original !== undefined) return original;
  const body: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) body.description = tool.description;
  body.input_schema = tool.parameters ?? { type: 'object', properties: {} };
  return body;
}

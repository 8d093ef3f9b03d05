/**
 * @module
 * AI SDK prompt → normalized transcript.
 */
import {
  type AssistantMessage,
  type ChatRequest,
  ContentMemo,
  type ContentPart,
  type Message,
  type RequestFormat,
  SpillwayError,
  type ToolCall,
  type ToolDefinition,
  type ToolMessage,
  type UserMessage,
} from '../../core/index.js';
import { extraOf, rememberSource } from './ai-sdk-sources.js';
import type {
  AssistantPart,
  FilePart,
  LanguageModelMessage,
  LanguageModelPrompt,
  LanguageModelTool,
  ToolPart,
  ToolResultOutput,
  UserPart,
} from './ai-sdk-types.js';

/** Inputs of {@link fromAISDKPrompt}: the fields of a call that fitting reads. */
export interface FromAISDKPromptOptions {
  prompt: LanguageModelPrompt;
  tools?: readonly LanguageModelTool[];
  maxOutputTokens?: number;
  model?: string;
  /** The wire format the provider speaks, for the estimator's overheads (default `openai`). */
  format?: RequestFormat;
}

/**
 * Reads an AI SDK prompt (`LanguageModelV3Prompt`) into the normalized transcript. Nothing is
 * dropped: text, reasoning and files become parts; client tool calls become `toolCalls` (arguments
 * as JSON text); each tool result becomes its own tool message (JSON outputs as their JSON text,
 * error outputs flagged `isError`); a tool-approval response becomes a user message holding the
 * part, in the turn of the call it answers; provider-executed tool calls and their results stay
 * parts of the assistant message they came in. Every field Spillway does not interpret
 * (`providerOptions`, reasoning signatures, `toolName`…) rides in `extra`. {@link toAISDKPrompt}
 * writes the caller's own objects back for every message fitting kept.
 *
 * @throws SpillwayError `invalid_transcript` naming the message index when a message is malformed.
 * @example
 * const request = fromAISDKPrompt({ prompt: params.prompt, tools: params.tools, model: 'gpt-4o' });
 */
export function fromAISDKPrompt({
  prompt,
  tools = [],
  maxOutputTokens,
  model,
  format = 'openai',
}: FromAISDKPromptOptions): ChatRequest {
  if (!Array.isArray(prompt))
    throw new SpillwayError('invalid_transcript', 'the AI SDK prompt is not an array of messages');
  const messages: Message[] = [];
  const read = READ_PROMPT.readList(prompt, REMEMBERED, (message, index) =>
    readMessage(message as LanguageModelMessage, index).map(
      (piece): ReadPiece => ({ message: piece.message, partIndex: partIndexOf(message, piece.part) }),
    ),
  );
  read.forEach((pieces, index) => {
    const message = prompt[index] as LanguageModelMessage;
    pieces.forEach((piece, pieceIndex) => {
      // The source is this call's own object, also for a message read before by content.
      rememberSource(piece.message, {
        message,
        index: pieceIndex,
        count: pieces.length,
        ...(pieces.length > 1 ? { part: partAt(message, piece.partIndex) } : {}),
      });
      messages.push(piece.message);
    });
  });
  const definitions = READ_TOOLS.readList(tools, REMEMBERED, (tool) =>
    readToolDefinition(tool as LanguageModelTool),
  );
  const request: ChatRequest = { format, messages, tools: definitions, extra: {} };
  if (model !== undefined) request.model = model;
  if (maxOutputTokens !== undefined) request.maxTokens = maxOutputTokens;
  return request;
}

interface Piece {
  message: Message;
  part?: unknown;
}

/** A piece as remembered: the position of its part in the message's content, not the part itself. */
interface ReadPiece {
  message: Message;
  partIndex: number;
}

/**
 * Prompt messages and tools read before, found again by content: an agent's prompt grows by a step
 * at a time, and what it held before is not read, checked or counted again. Values nested deeper than
 * this are read every time, never remembered.
 */
const READ_PROMPT = new ContentMemo<ReadPiece[]>();
const READ_TOOLS = new ContentMemo<ToolDefinition>({ maxEntries: 4_096 });
const REMEMBERED = { maxDepth: 128 };

function partIndexOf(message: unknown, part: unknown): number {
  const content = (message as { content?: unknown }).content;
  return part === undefined || !Array.isArray(content) ? -1 : content.indexOf(part);
}

function partAt(message: LanguageModelMessage, index: number): unknown {
  return Array.isArray(message.content) && index >= 0 ? message.content[index] : undefined;
}

function invalid(message: string, index: number): SpillwayError {
  return new SpillwayError('invalid_transcript', message, { data: { messageIndex: index } });
}

function withExtra<T extends Message>(message: T, extra: Record<string, unknown> | undefined): T {
  if (extra) message.extra = extra;
  return message;
}

function readMessage(message: LanguageModelMessage, index: number): Piece[] {
  if (typeof message !== 'object' || message === null)
    throw invalid(`message ${index} of the AI SDK prompt is not an object`, index);
  const extra = extraOf(message, ['role', 'content']);
  switch (message.role) {
    case 'system':
      if (typeof message.content !== 'string')
        throw invalid(`system message ${index} has content that is not a string`, index);
      return [{ message: withExtra({ role: 'system', content: message.content }, extra) }];
    case 'user':
      return [
        { message: withExtra({ role: 'user', content: partsOf(message, index).map(readUserPart) }, extra) },
      ];
    case 'assistant':
      return [{ message: withExtra(readAssistant(partsOf(message, index)), extra) }];
    case 'tool':
      return readToolMessage(partsOf(message, index), extra);
    default:
      throw invalid(
        `message ${index} has role ${JSON.stringify((message as { role?: unknown }).role)}; AI SDK prompts hold system, user, assistant and tool messages`,
        index,
      );
  }
}

function partsOf<T extends { content: unknown }>(
  message: T,
  index: number,
): Extract<T['content'], unknown[]> {
  if (!Array.isArray(message.content))
    throw invalid(`message ${index} has content that is not an array of parts`, index);
  return message.content as Extract<T['content'], unknown[]>;
}

function textPart(type: 'text' | 'reasoning', part: { text: string }): ContentPart {
  const extra = extraOf(part, ['type', 'text']);
  return extra ? { type, text: part.text, extra } : { type, text: part.text };
}

function readFile(part: FilePart): ContentPart {
  if (typeof part.mediaType === 'string' && part.mediaType.startsWith('image/'))
    return { type: 'image', value: part };
  // Bytes are kept as base64 text: their JSON would count each byte as a number.
  const value =
    part.data instanceof Uint8Array ? { ...part, data: Buffer.from(part.data).toString('base64') } : part;
  return { type: 'opaque', value };
}

function readUserPart(part: UserPart): ContentPart {
  if (part.type === 'text') return textPart('text', part);
  if (part.type === 'file') return readFile(part);
  return { type: 'opaque', value: part };
}

function readAssistant(parts: AssistantPart[]): AssistantMessage {
  const content: ContentPart[] = [];
  const calls: ToolCall[] = [];
  const positions: number[] = [];
  parts.forEach((part, index) => {
    if (part.type === 'text' || part.type === 'reasoning') content.push(textPart(part.type, part));
    else if (part.type === 'file') content.push(readFile(part));
    else if (part.type === 'tool-call' && part.providerExecuted !== true) {
      const call: ToolCall = {
        id: part.toolCallId,
        name: part.toolName,
        arguments: JSON.stringify(part.input ?? {}),
      };
      const extra = extraOf(part, ['type', 'toolCallId', 'toolName', 'input']);
      if (extra) call.extra = extra;
      calls.push(call);
      positions.push(index);
    } else {
      // Provider-executed calls and their results: the provider pairs them, within this message.
      content.push({ type: 'opaque', value: part });
    }
  });
  const message: AssistantMessage = { role: 'assistant', content };
  if (calls.length > 0) {
    message.toolCalls = calls;
    if (!positions.every((position, callIndex) => position === content.length + callIndex))
      message.wire = { toolCallPositions: positions };
  }
  return message;
}

function readToolMessage(parts: ToolPart[], extra: Record<string, unknown> | undefined): Piece[] {
  // An empty tool message has nothing to pair; it is kept as an empty user message of its turn.
  if (parts.length === 0) return [{ message: { role: 'user', content: [], wire: { attached: true } } }];
  return parts.map((part, index): Piece => {
    const wire = { attached: index > 0, ...(index === 0 && extra ? { messageExtra: extra } : {}) };
    if (part.type === 'tool-result') return { message: { ...readToolResult(part), wire }, part };
    const approval: UserMessage = { role: 'user', content: [{ type: 'opaque', value: part }], wire };
    return { message: approval, part };
  });
}

function readToolResult(part: Extract<ToolPart, { type: 'tool-result' }>): ToolMessage {
  const { output } = part;
  // The output's fields but its value; a denial keeps whether it had a reason ('' included).
  const { value: _value, ...meta } = output as ToolResultOutput & { value?: unknown };
  const message: ToolMessage = {
    role: 'tool',
    toolCallId: part.toolCallId,
    content: outputContent(output),
    extra: extraOf(part, ['type', 'toolCallId', 'output'], { output: meta }),
  };
  if (output.type === 'error-text' || output.type === 'error-json') message.isError = true;
  return message;
}

function outputContent(output: ToolResultOutput): ToolMessage['content'] {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value) ?? 'null';
    case 'execution-denied':
      return output.reason ?? '';
    case 'content':
      return output.value.map((item): ContentPart => {
        if (item.type === 'text') return textPart('text', item);
        if (item.type.startsWith('image')) return { type: 'image', value: item };
        return { type: 'opaque', value: item };
      });
    default:
      return JSON.stringify(output) ?? '';
  }
}

function readToolDefinition(tool: LanguageModelTool): ToolDefinition {
  if (tool.type === 'function') {
    const definition: ToolDefinition = { name: tool.name, parameters: tool.inputSchema };
    if (tool.description !== undefined) definition.description = tool.description;
    return definition;
  }
  return { name: tool.name, parameters: tool.args };
}

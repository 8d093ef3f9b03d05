/**
 * @module
 * Normalized transcript → AI SDK prompt.
 */
import {
  type AssistantMessage,
  type ChatRequest,
  type Content,
  type ContentPart,
  contentParts,
  contentText,
  type Message,
  type ToolMessage,
} from '../../core/index.js';
import { type PromptSource, sourceOf, writableExtra } from './ai-sdk-sources.js';
import type {
  AssistantPart,
  LanguageModelMessage,
  LanguageModelPrompt,
  ToolPart,
  ToolResultOutput,
  UserPart,
} from './ai-sdk-types.js';

type ToolMessageOut = Extract<LanguageModelMessage, { role: 'tool' }>;

/**
 * Writes normalized messages as an AI SDK prompt. A message {@link fromAISDKPrompt} read and fitting
 * kept is written as the caller's own object (a tool message whose results were split is restored
 * when all its pieces are there); a message built or changed since (a compacted summary, a
 * compressed tool result) is written from its fields, its AI SDK fields restored from `extra`, and
 * consecutive tool results share one tool message. Messages from other wire formats convert too:
 * reasoning becomes a reasoning part, images and documents file parts.
 *
 * @example
 * const params = { ...call, prompt: toAISDKPrompt(fitted.request), maxOutputTokens: fitted.request.maxTokens };
 */
export function toAISDKPrompt({ messages }: Pick<ChatRequest, 'messages'>): LanguageModelPrompt {
  const names = new Map<string, string>();
  for (const message of messages)
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
  const out: LanguageModelMessage[] = [];
  let open: ToolMessageOut | undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    const source = sourceOf(message);
    if (source && isWholeMessage(messages, index, source)) {
      out.push(source.message);
      index += source.count - 1;
      open = undefined;
      continue;
    }
    const toolParts = toolPartsOf(message, source, names);
    if (toolParts) {
      if (open && message.wire?.attached !== false) open.content.push(...toolParts);
      else {
        open = { ...message.wire?.messageExtra, role: 'tool', content: toolParts } as ToolMessageOut;
        out.push(open);
      }
      continue;
    }
    open = undefined;
    out.push(writeMessage(message as Exclude<Message, ToolMessage>));
  }
  return out;
}

/** Whether the pieces of `source.message` start at `index` and are all there, in order, unchanged. */
function isWholeMessage(messages: readonly Message[], index: number, source: PromptSource): boolean {
  if (source.index !== 0) return false;
  for (let offset = 1; offset < source.count; offset++) {
    const piece = messages[index + offset];
    const other = piece === undefined ? undefined : sourceOf(piece);
    if (other?.message !== source.message || other.index !== offset) return false;
  }
  return true;
}

/** The tool-message parts a message stands for: a tool result, or a user message of approval responses. */
function toolPartsOf(
  message: Message,
  source: PromptSource | undefined,
  names: ReadonlyMap<string, string>,
): ToolPart[] | undefined {
  if (message.role === 'tool')
    return [(source?.part as ToolPart | undefined) ?? writeToolResult(message, names)];
  if (message.role !== 'user' || typeof message.content === 'string' || message.content.length === 0)
    return undefined;
  if (
    !message.content.every(
      (part) => part.type === 'opaque' && typeOf(part.value) === 'tool-approval-response',
    )
  )
    return undefined;
  if (source?.part) return [source.part as ToolPart];
  return message.content.map((part) => (part as { value: ToolPart }).value);
}

function writeMessage(message: Exclude<Message, ToolMessage>): LanguageModelMessage {
  const extra = writableExtra(message.extra);
  switch (message.role) {
    case 'system':
      return { ...extra, role: 'system', content: contentText(message.content) } as LanguageModelMessage;
    case 'user':
      return {
        ...extra,
        role: 'user',
        content: contentParts(message.content).map(userPart),
      } as LanguageModelMessage;
    case 'assistant':
      return { ...extra, role: 'assistant', content: assistantParts(message) } as LanguageModelMessage;
  }
}

function userPart(part: ContentPart): UserPart {
  if (part.type === 'text' || part.type === 'reasoning')
    return { ...writableExtra(part.extra), type: 'text', text: part.text } as UserPart;
  return (filePartOf(part.value) ?? { type: 'text', text: JSON.stringify(part.value) ?? '' }) as UserPart;
}

const ASSISTANT_PART_TYPES = new Set(['file', 'tool-call', 'tool-result', 'text', 'reasoning']);

function assistantParts(message: AssistantMessage): AssistantPart[] {
  const parts = contentParts(message.content).map((part): AssistantPart => {
    if (part.type === 'text' || part.type === 'reasoning')
      return { ...writableExtra(part.extra), type: part.type, text: part.text } as AssistantPart;
    if (ASSISTANT_PART_TYPES.has(typeOf(part.value) ?? '')) return part.value as AssistantPart;
    return (filePartOf(part.value) ?? {
      type: 'text',
      text: JSON.stringify(part.value) ?? '',
    }) as AssistantPart;
  });
  const calls = (message.toolCalls ?? []).map(
    (call) =>
      ({
        ...writableExtra(call.extra),
        type: 'tool-call',
        toolCallId: call.id,
        toolName: call.name,
        input: parseArguments(call.arguments),
      }) as AssistantPart,
  );
  const positions = message.wire?.toolCallPositions;
  if (!positions || positions.length !== calls.length) return [...parts, ...calls];
  const out = [...parts];
  for (const [callIndex, position] of positions.entries())
    out.splice(Math.min(position, out.length), 0, calls[callIndex] as AssistantPart);
  return out;
}

function writeToolResult(message: ToolMessage, names: ReadonlyMap<string, string>): ToolPart {
  const { output: meta, toolName, ...extra } = writableExtra(message.extra);
  return {
    ...extra,
    type: 'tool-result',
    toolCallId: message.toolCallId,
    toolName: typeof toolName === 'string' ? toolName : (names.get(message.toolCallId) ?? 'unknown'),
    output: writeOutput(
      message,
      typeof meta === 'object' && meta !== null ? (meta as { type?: unknown }) : {},
    ),
  } as ToolPart;
}

/** The output a tool message stands for, of the type it was read as when its content still allows it. */
function writeOutput(message: ToolMessage, meta: { type?: unknown }): ToolResultOutput {
  const content: Content = message.content;
  const rich = typeof content !== 'string' && content.some((part) => part.type !== 'text');
  const text = contentText(content);
  if (meta.type === 'content' || rich)
    return { ...meta, type: 'content', value: contentParts(content).map(outputPart) } as ToolResultOutput;
  if (meta.type === 'execution-denied')
    return (text === '' && !('reason' in meta) ? { ...meta } : { ...meta, reason: text }) as ToolResultOutput;
  if (meta.type === 'json' || meta.type === 'error-json') {
    try {
      return { ...meta, value: JSON.parse(text) } as ToolResultOutput;
    } catch {
      // The content was rewritten (compressed, say): it goes as text now.
    }
  }
  return { ...meta, type: message.isError ? 'error-text' : 'text', value: text } as ToolResultOutput;
}

function outputPart(part: ContentPart): unknown {
  if (part.type === 'text' || part.type === 'reasoning')
    return { ...writableExtra(part.extra), type: 'text', text: part.text };
  const type = typeOf(part.value);
  if (type !== undefined && /^(image|file)-|^custom$/.test(type)) return part.value;
  return { type: 'text', text: JSON.stringify(part.value) ?? '' };
}

function typeOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A file part for an image or document block: the AI SDK's own, OpenAI's `image_url`, Anthropic's
 * `image` / `document` with a base64 or URL source.
 */
function filePartOf(value: unknown): UserPart | undefined {
  const type = typeOf(value);
  const record = value as Record<string, unknown>;
  if (type === 'file') return value as UserPart;
  if (type === 'image_url') {
    const url = (record.image_url as { url?: unknown } | undefined)?.url;
    if (typeof url !== 'string') return undefined;
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    return data
      ? { type: 'file', mediaType: data[1] as string, data: data[2] as string }
      : { type: 'file', mediaType: 'image/*', data: new URL(url) };
  }
  if (type === 'image' || type === 'document') {
    const source = record.source as Record<string, unknown> | undefined;
    const fallback = type === 'image' ? 'image/*' : 'application/pdf';
    const mediaType = typeof source?.media_type === 'string' ? source.media_type : fallback;
    if (source?.type === 'base64' && typeof source.data === 'string')
      return { type: 'file', mediaType, data: source.data };
    if (source?.type === 'url' && typeof source.url === 'string')
      return { type: 'file', mediaType, data: new URL(source.url) };
  }
  return undefined;
}

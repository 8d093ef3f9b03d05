/**
 * @module
 * The normalized transcript: one shape for OpenAI Chat Completions, OpenAI Responses and Anthropic
 * Messages requests.
 *
 * Messages are treated as immutable values: Spillway caches per-message estimates by object identity,
 * so change a message by replacing it, never by mutating it.
 */

/** Fields of a wire object that Spillway does not interpret; they round-trip untouched. */
export type Extra = Record<string, unknown>;

/** Plain text. */
export interface TextPart {
  type: 'text';
  text: string;
  extra?: Extra;
}

/** Model reasoning ("thinking"). Signatures and other provider fields live in `extra`. */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  extra?: Extra;
}

/** An image. `value` is the wire block, kept verbatim. */
export interface ImagePart {
  type: 'image';
  value: unknown;
}

/** A block Spillway does not understand (documents, redacted thinking, audio…), kept verbatim. */
export interface OpaquePart {
  type: 'opaque';
  value: unknown;
}

/** One piece of message content. */
export type ContentPart = TextPart | ReasoningPart | ImagePart | OpaquePart;

/** Message content: a string, or parts when the wire used blocks. */
export type Content = string | ContentPart[];

/**
 * Wire details that a converter needs to write a message back byte-for-byte, and that are not
 * unknown fields. Never set by hand.
 */
export interface WireHints {
  /** The OpenAI role was `developer` rather than `system`. */
  developer?: boolean;
  /** The wire content was `null` (OpenAI assistant messages with tool calls). */
  nullContent?: boolean;
  /** The wire content was a single string (Anthropic system as a string, for instance). */
  stringContent?: boolean;
  /** Anthropic: `true` when this message continues the wire message before it (a user message whose
   * blocks were split into tool results and text); `false` when it starts a wire message of its own. */
  attached?: boolean;
  /** Anthropic: the block index of each tool call within the assistant's content, when the calls did
   * not all come after the other blocks. */
  toolCallPositions?: number[];
  /** Anthropic: fields of the wire message this message was split from, restored when it is written. */
  messageExtra?: Extra;
  /** Anthropic: the tool_result block had no `content` field at all. */
  noContent?: boolean;
  /** Responses API: the system message is the request's `instructions`, not an input item. */
  instructions?: boolean;
  /** Gemini: the one field of `functionResponse.response` the tool message's text came from. */
  responseKey?: string;
  /** Gemini: fields of the part around a function response, restored when it is written. */
  partExtra?: Extra;
}

/** A tool call the assistant asked for. `arguments` is JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  extra?: Extra;
}

/** A system (or developer) instruction. */
export interface SystemMessage {
  role: 'system';
  content: Content;
  extra?: Extra;
  wire?: WireHints;
}

/** A user message. */
export interface UserMessage {
  role: 'user';
  content: Content;
  extra?: Extra;
  wire?: WireHints;
}

/** An assistant message: text, reasoning and tool calls. */
export interface AssistantMessage {
  role: 'assistant';
  content: Content;
  toolCalls?: ToolCall[];
  extra?: Extra;
  wire?: WireHints;
}

/** The result of one tool call. */
export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  content: Content;
  /** The tool reported failure (Anthropic `is_error`). */
  isError?: boolean;
  extra?: Extra;
  wire?: WireHints;
}

/** Any normalized message. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A tool the model may call. `parameters` is its JSON Schema. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: unknown;
  /** Where the tool comes from (an MCP server name, `builtin`, …), for cost attribution. */
  source?: string;
}

/**
 * Which wire format a request came in. `responses`: the OpenAI Responses API (`input` items,
 * `instructions`, `max_output_tokens`); `gemini`: the Gemini API's `generateContent` (`contents`,
 * `systemInstruction`, `generationConfig.maxOutputTokens`).
 */
export type RequestFormat = 'openai' | 'anthropic' | 'responses' | 'gemini';

/** Every {@link RequestFormat}. */
export const REQUEST_FORMATS: readonly RequestFormat[] = ['openai', 'anthropic', 'responses', 'gemini'];

/** A normalized chat request. */
export interface ChatRequest {
  format: RequestFormat;
  model?: string;
  messages: Message[];
  tools: ToolDefinition[];
  /** The reply cap the request asks for, if any. */
  maxTokens?: number;
  /** The wire field `maxTokens` came from (`max_tokens` or `max_completion_tokens`). */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Every other request field, untouched. */
  extra: Extra;
}

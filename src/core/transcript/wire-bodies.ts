/**
 * @module
 * The wire bodies the converters write, typed so that they pass as they are to the official SDKs
 * (`client.chat.completions.create(toOpenAIChat(request))`, `client.messages.create(toAnthropic(request))`).
 * Every field Spillway does not interpret is carried through, so each shape is open (`[field: string]: unknown`).
 */

/** A text part, as both APIs write it (cache markers and other fields kept). */
export interface WireTextPart {
  type: 'text';
  text: string;
  [field: string]: unknown;
}

/**
 * A part of an OpenAI Chat Completions message other than text, with the field each kind requires
 * (the SDK's `ChatCompletionContentPart` union is discriminated on `type`).
 */
export type OpenAIOtherPart =
  | { type: 'image_url'; image_url: { url: string }; [field: string]: unknown }
  | { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' }; [field: string]: unknown }
  | {
      type: 'file';
      file: { file_data?: string; file_id?: string; filename?: string };
      [field: string]: unknown;
    };

/** An OpenAI tool call. */
export interface OpenAIToolCallWire {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  [field: string]: unknown;
}

/** An OpenAI Chat Completions message. */
export type OpenAIChatMessage =
  | { role: 'system' | 'developer'; content: string | WireTextPart[]; [field: string]: unknown }
  | { role: 'user'; content: string | (WireTextPart | OpenAIOtherPart)[]; [field: string]: unknown }
  | {
      role: 'assistant';
      content?: string | WireTextPart[] | null;
      tool_calls?: OpenAIToolCallWire[];
      [field: string]: unknown;
    }
  | { role: 'tool'; content: string | WireTextPart[]; tool_call_id: string; [field: string]: unknown };

/** An OpenAI Chat Completions request body. */
export interface OpenAIChatBody {
  /** The request's model (absent only when the request had none). */
  model: string;
  messages: OpenAIChatMessage[];
  tools?: {
    type: 'function';
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
    [field: string]: unknown;
  }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  [field: string]: unknown;
}

/** A content block of an Anthropic message. */
export type AnthropicBlock =
  | WireTextPart
  | { type: 'tool_use'; id: string; name: string; input: unknown; [field: string]: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content?: string | WireTextPart[];
      is_error?: boolean;
      [field: string]: unknown;
    }
  | { type: 'thinking'; thinking: string; signature: string; [field: string]: unknown }
  | { type: 'redacted_thinking'; data: string; [field: string]: unknown }
  | { type: 'image' | 'document'; source: Record<string, unknown>; [field: string]: unknown };

/** An Anthropic message. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
  [field: string]: unknown;
}

/** An Anthropic Messages request body. */
export interface AnthropicMessagesBody {
  /** The request's model (absent only when the request had none). */
  model: string;
  /** The reply cap (the manager fills it in; absent only when the request had none and was not fitted). */
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | WireTextPart[];
  tools?: {
    name: string;
    description?: string;
    input_schema: { type: 'object'; [field: string]: unknown };
    [field: string]: unknown;
  }[];
  [field: string]: unknown;
}

/** An item of a Responses API `input`: a message, a tool call or its output, reasoning, or another item. */
export type ResponsesInputItem =
  | {
      type?: 'message';
      role: 'user' | 'assistant' | 'system' | 'developer';
      content: string | { type: string; [field: string]: unknown }[];
      [field: string]: unknown;
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string; [field: string]: unknown }
  | { type: 'custom_tool_call'; call_id: string; name: string; input: string; [field: string]: unknown }
  | {
      type: 'function_call_output' | 'custom_tool_call_output' | 'local_shell_call_output';
      call_id: string;
      output: unknown;
      [field: string]: unknown;
    }
  | { type: 'reasoning'; summary: { type: 'summary_text'; text: string }[]; [field: string]: unknown }
  | { type: string; [field: string]: unknown };

/** An OpenAI Responses API request body (`POST /v1/responses`, `POST /v1/responses/input_tokens`). */
export interface ResponsesBody {
  /** The request's model (absent only when the request had none). */
  model: string;
  input: string | ResponsesInputItem[];
  instructions?: string;
  tools?: { type: string; name?: string; [field: string]: unknown }[];
  max_output_tokens?: number;
  previous_response_id?: string;
  [field: string]: unknown;
}

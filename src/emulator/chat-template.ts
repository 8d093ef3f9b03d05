/**
 * @module
 * The chat template every emulator renders before it counts prompt tokens: Qwen 2.5 Instruct's
 * ChatML template with Hermes-style tools (`tokenizer_config.json` of Qwen/Qwen2.5-7B-Instruct), as
 * vLLM, llama.cpp (`--jinja`) and Ollama apply it. Rendered, a request looks like this:
 *
 * ```text
 * <|im_start|>system
 * {system prompt, or "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."}
 *
 * # Tools
 *
 * You may call one or more functions to assist with the user query.
 *
 * You are provided with function signatures within <tools></tools> XML tags:
 * <tools>
 * {tool 1 as tojson}
 * {tool 2 as tojson}
 * </tools>
 *
 * For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
 * <tool_call>
 * {"name": <function-name>, "arguments": <args-json-object>}
 * </tool_call><|im_end|>
 * <|im_start|>user
 * {text}<|im_end|>
 * <|im_start|>assistant
 * {text}
 * <tool_call>
 * {"name": "read_file", "arguments": {"path": "src/a.ts"}}
 * </tool_call><|im_end|>
 * <|im_start|>user
 * <tool_response>
 * {result 1}
 * </tool_response>
 * <tool_response>
 * {result 2}
 * </tool_response><|im_end|>
 * <|im_start|>assistant
 * ```
 *
 * The tools block (from "# Tools" on) appears only when the request declares tools; without a system
 * message the template inserts Qwen's default one. Consecutive tool results share one user turn. A
 * system message after the first renders as its own turn. Roles the template does not know are
 * rendered as nothing, which is what the real template does with them. `<|im_start|>` and
 * `<|im_end|>` are single special tokens; everything else is ordinary text.
 */
import { toPythonJson } from './python-json.js';

/** The ChatML turn opener, one special token. */
export const IM_START = '<|im_start|>';
/** The ChatML turn closer, one special token; also the model's end-of-sequence token. */
export const IM_END = '<|im_end|>';
/** The system prompt the Qwen 2.5 template inserts when a request has none. */
export const DEFAULT_SYSTEM_PROMPT = 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.';

const TOOLS_HEADER =
  '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const TOOLS_FOOTER =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ' +
  '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n' +
  '</tool_call>';

/** One tool call as the template sees it; `arguments` is the parsed object (or the raw text). */
export interface TemplateToolCall {
  name: string;
  arguments: unknown;
}

/** One message as the template sees it: its role and its content flattened to text. */
export interface TemplateMessage {
  role: string;
  content: string;
  toolCalls?: TemplateToolCall[];
}

/** What the template renders: the messages and the tool objects (rendered as `tojson`). */
export interface TemplateInput {
  messages: TemplateMessage[];
  tools: unknown[];
}

/** The text of one tool call inside an assistant turn, exactly as the template writes it. */
export function renderToolCall(call: TemplateToolCall): string {
  return `\n<tool_call>\n{"name": "${call.name}", "arguments": ${toPythonJson(call.arguments)}}\n</tool_call>`;
}

/**
 * Renders a request with the Qwen 2.5 template and the generation prompt
 * (`<|im_start|>assistant\n`) at the end.
 *
 * @example
 * renderChatTemplate({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
 * // '<|im_start|>system\nYou are Qwen, …<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n'
 */
export function renderChatTemplate({ messages, tools }: TemplateInput): string {
  const parts: string[] = [];
  const first = messages[0];
  const system = first?.role === 'system' ? first.content : DEFAULT_SYSTEM_PROMPT;
  if (tools.length > 0) {
    parts.push(`${IM_START}system\n${system}${TOOLS_HEADER}`);
    for (const tool of tools) parts.push(`\n${toPythonJson(tool)}`);
    parts.push(`${TOOLS_FOOTER}${IM_END}\n`);
  } else {
    parts.push(`${IM_START}system\n${system}${IM_END}\n`);
  }
  messages.forEach((message, index) => {
    const calls = message.toolCalls ?? [];
    if (
      message.role === 'user' ||
      (message.role === 'system' && index > 0) ||
      (message.role === 'assistant' && calls.length === 0)
    ) {
      parts.push(`${IM_START}${message.role}\n${message.content}${IM_END}\n`);
    } else if (message.role === 'assistant') {
      parts.push(`${IM_START}assistant${message.content ? `\n${message.content}` : ''}`);
      for (const call of calls) parts.push(renderToolCall(call));
      parts.push(`${IM_END}\n`);
    } else if (message.role === 'tool') {
      if (index === 0 || messages[index - 1]?.role !== 'tool') parts.push(`${IM_START}user`);
      parts.push(`\n<tool_response>\n${message.content}\n</tool_response>`);
      if (index === messages.length - 1 || messages[index + 1]?.role !== 'tool') parts.push(`${IM_END}\n`);
    }
  });
  parts.push(`${IM_START}assistant\n`);
  return parts.join('');
}

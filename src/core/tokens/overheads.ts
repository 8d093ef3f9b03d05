/**
 * @module
 * Tokens a chat template adds around content, counted on top of the text itself. Chat templates
 * wrap every message in role markers (ChatML: `<|im_start|>role\n … <|im_end|>\n`, 5 tokens; Llama 3:
 * `<|start_header_id|>role<|end_header_id|>\n\n … <|eot_id|>`, 5 tokens) and every tool call in a
 * JSON envelope (Hermes style: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, about 14).
 * The values below sit above what the emulators' Qwen 2.5 (ChatML + Hermes) template adds, measured
 * with `measureTemplateOverhead()` from `spillway/emulator` on o200k and cl100k: 5 per message,
 * 18–21 per tool call, 19–26 per tool definition, 86 once for the tool block, 3 to prime the reply
 * plus 21 for the default system prompt a template adds when the request has none.
 */

/** Role markers and separators around one message. */
export const MESSAGE_OVERHEAD = 8;

/** A tool result's envelope: its message markers plus the tool-response tags (14 measured). */
export const TOOL_RESULT_OVERHEAD = 16;

/** The envelope of one tool call: markers, the name and arguments keys, quotes and the call id. */
export const TOOL_CALL_OVERHEAD = 22;

/** The envelope of one tool definition in the rendered tool list. */
export const TOOL_DEFINITION_OVERHEAD = 28;

/** The instructions around the tool list, once per request that declares tools. */
export const TOOL_BLOCK_OVERHEAD = 96;

/** Tokens that prime the reply, plus a default system prompt some templates add, once per request. */
export const REQUEST_OVERHEAD = 24;

/** One image, counted at Anthropic's documented ~1,600 tokens for a full-size (1.15 megapixel) image. */
export const IMAGE_TOKENS = 1_600;

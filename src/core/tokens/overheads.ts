/**
 * @module
 * Tokens a chat template adds around content, counted on top of the text itself. Chat templates
 * wrap every message in role markers (ChatML: `<|im_start|>role\n … <|im_end|>\n`, 5 tokens; Llama 3:
 * `<|start_header_id|>role<|end_header_id|>\n\n … <|eot_id|>`, 5 tokens) and every tool call in a
 * JSON envelope (Hermes style: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, about 14).
 * The values below sit above those, measured with `npm run bench` (template overhead section).
 */

/** Role markers and separators around one message. */
export const MESSAGE_OVERHEAD = 8;

/** The envelope of one tool call: markers, the name and arguments keys, quotes and the call id. */
export const TOOL_CALL_OVERHEAD = 16;

/** The envelope of one tool definition in the rendered tool list. */
export const TOOL_DEFINITION_OVERHEAD = 12;

/** Tokens that prime the reply and frame the tool block once per request. */
export const REQUEST_OVERHEAD = 16;

/** One image, counted at Anthropic's documented ~1,600 tokens for a full-size (1.15 megapixel) image. */
export const IMAGE_TOKENS = 1_600;

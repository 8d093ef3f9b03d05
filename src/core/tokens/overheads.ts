/**
 * @module
 * Tokens a chat template adds around content, counted on top of the text itself. Chat templates
 * wrap every message in role markers (ChatML: `<|im_start|>role\n … <|im_end|>\n`, 5 tokens; Llama 3:
 * `<|start_header_id|>role<|end_header_id|>\n\n … <|eot_id|>`, 5 tokens) and every tool call in a
 * JSON envelope (Hermes style: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, about 14).
 * The values below sit above what the emulators' Qwen 2.5 (ChatML + Hermes) template adds, measured
 * with `measureTemplateOverhead()` from `spillway/testing` on o200k and cl100k: 5 per message,
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

/**
 * What a chat template adds around content, for one way of rendering a request. The estimator uses
 * {@link ESTIMATOR_TEMPLATE} (figures above every template measured); an exact counter pairs with the
 * costs of the template the model really uses, so that content and wrapping are both counted as the
 * server counts them.
 */
export interface ChatTemplateCosts {
  readonly name: string;
  /** Role markers and separators around each message. */
  readonly message: number;
  /** Added when a message carries a `name` (OpenAI). */
  readonly messageName: number;
  /** Around each tool call, on top of its name and arguments. */
  readonly toolCall: number;
  /** Around each tool result, on top of its content. */
  readonly toolResult: number;
  /** Whether tool-call ids are rendered (counted) or dropped by the template. */
  readonly callIds: boolean;
  /** Per tool definition: the envelope (`json`) or OpenAI's `func_init` (`openai-functions`). */
  readonly toolDefinition: number;
  /** Once when tools are declared: the tools preamble, or OpenAI's `func_end`. */
  readonly toolBlock: number;
  /** How tool definitions are counted: their JSON text, or OpenAI's documented function format. */
  readonly tools: 'json' | 'openai-functions';
  /** Once per request: the tokens that prime the reply. */
  readonly request: number;
  /** Once per request without a system message: the default system prompt a template inserts. */
  readonly defaultSystem: number;
}

/** The numeric costs of a template, each a whole number of tokens. */
const TEMPLATE_COSTS = [
  'message',
  'messageName',
  'toolCall',
  'toolResult',
  'toolDefinition',
  'toolBlock',
  'request',
  'defaultSystem',
] as const;

/**
 * What is wrong with a template's costs given from outside (a counter's `template`), or undefined
 * when nothing is: every cost a whole number of tokens, at least 0.
 *
 * @example
 * templateCostsProblem({ ...CHATML_TEMPLATE, message: -1 }); // 'message must be a whole number of tokens, at least 0, got -1'
 */
export function templateCostsProblem(template: unknown): string | undefined {
  if (typeof template !== 'object' || template === null) return `must be an object of costs, got ${template}`;
  const costs = template as Record<string, unknown>;
  if (typeof costs.name !== 'string') return 'name must be a string';
  for (const key of TEMPLATE_COSTS) {
    const value = costs[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
      return `${key} must be a whole number of tokens, at least 0, got ${String(value)}`;
  }
  if (typeof costs.callIds !== 'boolean')
    return `callIds must be true or false, got ${String(costs.callIds)}`;
  if (costs.tools !== 'json' && costs.tools !== 'openai-functions')
    return `tools must be 'json' or 'openai-functions', got ${String(costs.tools)}`;
  return undefined;
}

/** The estimator's template: above what the measured templates add (see the figures above). */
export const ESTIMATOR_TEMPLATE: ChatTemplateCosts = {
  name: 'estimator',
  message: MESSAGE_OVERHEAD,
  messageName: 0,
  toolCall: TOOL_CALL_OVERHEAD,
  toolResult: TOOL_RESULT_OVERHEAD,
  callIds: true,
  toolDefinition: TOOL_DEFINITION_OVERHEAD,
  toolBlock: TOOL_BLOCK_OVERHEAD,
  tools: 'json',
  request: REQUEST_OVERHEAD,
  defaultSystem: 0,
};

/**
 * OpenAI Chat Completions, as the OpenAI Cookbook documents it ("How to count tokens with tiktoken",
 * examples/How_to_count_tokens_with_tiktoken.ipynb): 3 tokens per message plus the tokens of its
 * role (the cookbook encodes every field's value; `system`, `user`, `assistant` and `tool` are one
 * token each), 1 more when it has a `name`, 3 to prime the reply (`<|start|>assistant<|message|>`);
 * tool definitions in the function
 * format the cookbook's `num_tokens_for_tools` counts (`func_init` 7 for gpt-4o and later, 10 for
 * gpt-4 and 3.5; `func_end` 12 once). Tool calls and results in the history are not documented; they
 * take the envelope measured on the emulators' Hermes template (21 and 14), ids counted.
 */
export function openAIChatTemplate(encoding: 'o200k' | 'cl100k' = 'o200k'): ChatTemplateCosts {
  return {
    name: `openai-chat/${encoding}`,
    message: 4,
    messageName: 1,
    toolCall: 21,
    toolResult: 14,
    callIds: true,
    toolDefinition: encoding === 'o200k' ? 7 : 10,
    toolBlock: 12,
    tools: 'openai-functions',
    request: 3,
    defaultSystem: 0,
  };
}

/**
 * Qwen 2.5's ChatML template with Hermes tools (what vLLM, SGLang and llama.cpp render for Qwen, and
 * the emulators render for every model), measured with `measureTemplateOverhead()` from
 * `spillway/testing` on o200k and cl100k (the largest figure of both): 5 per message, 21 per tool
 * call, 14 per tool result, 26 per tool definition over its JSON, 86 for the tools preamble, 3 to
 * prime the reply and 21 for the default system prompt. Call ids are not rendered.
 */
export const CHATML_TEMPLATE: ChatTemplateCosts = {
  name: 'chatml-hermes',
  message: 5,
  messageName: 0,
  toolCall: 21,
  toolResult: 14,
  callIds: false,
  toolDefinition: 26,
  toolBlock: 86,
  tools: 'json',
  request: 3,
  defaultSystem: 21,
};

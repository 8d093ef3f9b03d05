/**
 * @module
 * The counting endpoints of the emulated servers. Each counts with the emulator's own tokenizer and
 * template, so a count agrees with the `usage` a chat request with the same content reports:
 * - vLLM `POST /tokenize` (`TokenizeChatRequest` / `TokenizeCompletionRequest` →
 *   `{count, max_model_len, tokens}`, vllm/entrypoints/openai/protocol.py);
 * - llama.cpp `POST /apply-template` (`{messages}` → `{prompt}`) and `POST /tokenize`
 *   (`{content, add_special, parse_special, with_pieces}` → `{tokens}`, tools/server/README.md);
 * - Anthropic `POST /v1/messages/count_tokens` (→ `{input_tokens}`);
 * - OpenAI `POST /v1/responses/input_tokens` (→ `{object: "response.input_tokens", input_tokens}`).
 */
import { renderChatTemplate } from './chat-template.js';
import type { HttpReply, RouteRequest } from './profiles/profile.js';
import { anthropicToTemplate, openAIToTemplate, responsesToTemplate } from './wire-to-template.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The generation prompt the template ends with (`<|im_start|>assistant\n`), as vLLM leaves it out
 * when `add_generation_prompt` is false. */
const GENERATION_PROMPT = '<|im_start|>assistant\n';

/** vLLM `POST /tokenize`; `invalid` renders a 400 in the profile's envelope. */
export function vllmTokenize(window: number, invalid: (message: string) => HttpReply) {
  return ({ body, encode }: RouteRequest): HttpReply => {
    if (!isRecord(body)) return invalid('the body must be a JSON object with "messages" or "prompt"');
    let text: string;
    if (Array.isArray(body.messages)) {
      text = renderChatTemplate(openAIToTemplate(body));
      if (body.add_generation_prompt === false) text = text.slice(0, -GENERATION_PROMPT.length);
    } else if (typeof body.prompt === 'string') text = body.prompt;
    else return invalid('Field required: "messages" or "prompt"');
    const tokens = encode(text, { parseSpecial: true });
    return { status: 200, body: { count: tokens.length, max_model_len: window, tokens } };
  };
}

/** llama.cpp `POST /apply-template`. */
export function llamacppApplyTemplate(invalid: (message: string) => HttpReply) {
  return ({ body }: RouteRequest): HttpReply => {
    if (!isRecord(body) || !Array.isArray(body.messages)) return invalid("'messages' is required");
    return { status: 200, body: { prompt: renderChatTemplate(openAIToTemplate(body)) } };
  };
}

/** llama.cpp `POST /tokenize`. */
export function llamacppTokenize(invalid: (message: string) => HttpReply) {
  return ({ body, encode }: RouteRequest): HttpReply => {
    if (!isRecord(body) || typeof body.content !== 'string') return invalid("'content' is required");
    const tokens = encode(body.content, { parseSpecial: body.parse_special !== false });
    return { status: 200, body: { tokens } };
  };
}

/** Anthropic `POST /v1/messages/count_tokens`. */
export function anthropicCountTokens(invalid: (message: string) => HttpReply) {
  return ({ body, count }: RouteRequest): HttpReply => {
    if (!isRecord(body)) return invalid('There was an error parsing the body of your request');
    if (!Array.isArray(body.messages)) return invalid('messages: Field required');
    return { status: 200, body: { input_tokens: count(anthropicToTemplate(body)) } };
  };
}

/** OpenAI `POST /v1/responses/input_tokens`. */
export function openAIInputTokens(invalid: (message: string) => HttpReply) {
  return ({ body, count }: RouteRequest): HttpReply => {
    if (!isRecord(body)) return invalid('We could not parse the JSON body of your request.');
    if (body.input === undefined && body.instructions === undefined)
      return invalid("Missing required parameter: 'input'.");
    return {
      status: 200,
      body: { object: 'response.input_tokens', input_tokens: count(responsesToTemplate(body)) },
    };
  };
}

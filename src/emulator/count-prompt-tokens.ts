import { detectFormat, SpillwayError } from '../core/index.js';
import { IM_END, IM_START, renderChatTemplate, type TemplateInput } from './chat-template.js';
import { getTokenizer, type Tokenizer, type TokenizerName } from './tokenizer.js';
import { anthropicToTemplate, openAIToTemplate } from './wire-to-template.js';

/** The wire format of a request body. */
export type PromptFormat = 'openai' | 'anthropic';

/** Options of {@link countPromptTokens}. */
export interface CountPromptTokensOptions {
  /** The body's wire format; detected from its fields when absent. */
  format?: PromptFormat;
  /** The tokenizer to count with (default `o200k`). */
  tokenizer?: TokenizerName;
}

/** The prompt tokens of one request, as the emulators report them in `usage`. */
export interface PromptTokenCount {
  /** Tokens of the rendered prompt, chat template and generation prompt included. */
  tokens: number;
  /** Messages the template rendered (an Anthropic system prompt and each tool result count as one). */
  messages: number;
  /** Tool schemas the template rendered. */
  tools: number;
}

const SPECIAL_TOKENS = new RegExp(`${IM_START.replace(/[|]/g, '\\|')}|${IM_END.replace(/[|]/g, '\\|')}`, 'g');

function bodyObject(body: unknown): Record<string, unknown> {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch (error) {
      throw new SpillwayError(
        'invalid_request',
        `the request is not valid JSON (${(error as Error).message})`,
      );
    }
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Array.isArray((value as { messages?: unknown }).messages)
  )
    throw new SpillwayError('invalid_request', 'the request must be a JSON object with a "messages" array');
  return value as Record<string, unknown>;
}

/** A request body read into the chat template's input. */
export function templateInputOf(body: unknown, { format }: { format?: PromptFormat } = {}): TemplateInput {
  const object = bodyObject(body);
  return (format ?? detectFormat(object)) === 'anthropic'
    ? anthropicToTemplate(object)
    : openAIToTemplate(object);
}

/**
 * The prompt text an emulator renders for a request: the Qwen 2.5 ChatML template (see
 * `chat-template.ts`), special tokens written as `<|im_start|>` and `<|im_end|>`.
 *
 * @example
 * renderPrompt({ messages: [{ role: 'user', content: 'hi' }] }).endsWith('<|im_start|>assistant\n'); // true
 */
export function renderPrompt(body: unknown, options: { format?: PromptFormat } = {}): string {
  return renderChatTemplate(templateInputOf(body, options));
}

/** The ids of ChatML's special tokens in Qwen 2.5's vocabulary (`added_tokens` of its tokenizer.json). */
const SPECIAL_TOKEN_IDS: Readonly<Record<string, number>> = { [IM_START]: 151_644, [IM_END]: 151_645 };

/**
 * Token ids of a rendered prompt, as a server's tokenize endpoint returns them: `<|im_start|>` and
 * `<|im_end|>` as their special ids when `parseSpecial`, else as the plain text they spell. Its
 * length is {@link countRenderedTokens} of the same text when special tokens are parsed.
 */
export function encodeRendered(
  rendered: string,
  tokenizer: Tokenizer,
  { parseSpecial = true } = {},
): number[] {
  if (!parseSpecial) return tokenizer.encode(rendered);
  const ids: number[] = [];
  let last = 0;
  for (const match of rendered.matchAll(SPECIAL_TOKENS)) {
    if (match.index > last) ids.push(...tokenizer.encode(rendered.slice(last, match.index)));
    ids.push(SPECIAL_TOKEN_IDS[match[0]] as number);
    last = match.index + match[0].length;
  }
  if (last < rendered.length) ids.push(...tokenizer.encode(rendered.slice(last)));
  return ids;
}

/** Tokens of a rendered prompt: one per special token, the text between them chunked and encoded. */
export function countRenderedTokens(rendered: string, tokenizer: Tokenizer): number {
  const pieces = rendered.split(SPECIAL_TOKENS);
  let total = pieces.length - 1;
  for (const piece of pieces) total += tokenizer.count(piece);
  return total;
}

/**
 * Counts the prompt tokens of an OpenAI Chat Completions or Anthropic Messages request the way the
 * emulators do: the request rendered with the Qwen 2.5 chat template (tool schemas included), then
 * encoded with gpt-tokenizer in chunks of at most 2 KB. The emulators report exactly this number as
 * `usage.prompt_tokens` / `usage.input_tokens`, so it is the ground truth an estimator is measured
 * against.
 *
 * @example
 * import { countPromptTokens } from 'spillway/testing';
 * countPromptTokens({ model: 'm', messages: [{ role: 'user', content: 'Hello' }] }).tokens; // 30
 */
export function countPromptTokens(
  body: unknown,
  { format, tokenizer = 'o200k' }: CountPromptTokensOptions = {},
): PromptTokenCount {
  const input = templateInputOf(body, { format });
  return {
    tokens: countRenderedTokens(renderChatTemplate(input), getTokenizer(tokenizer)),
    messages: input.messages.length,
    tools: input.tools.length,
  };
}

/** Counts an already converted template input (used by profiles that re-render a truncated prompt). */
export function countTemplateTokens(input: TemplateInput, tokenizer: Tokenizer): number {
  return countRenderedTokens(renderChatTemplate(input), tokenizer);
}

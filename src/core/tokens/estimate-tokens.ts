import { SpillwayError } from '../errors/index.js';
import {
  type ChatRequest,
  type Message,
  requireChatRequest,
  requireMessages,
  requireObject,
} from '../transcript/index.js';
import { createEstimator } from './estimator.js';
import { EstimateCache } from './message-cache.js';
import type { TokenBreakdown } from './message-estimate.js';
import type { TokenCounter } from './token-counter.js';
import { type TokenizerFamily, tokenizerFamilyOf } from './tokenizer-family.js';

/** Options of {@link estimateTokens}. */
export interface EstimateOptions {
  /** The model id; picks the tokenizer family when `family` is not given. */
  model?: string;
  family?: TokenizerFamily;
  /** Count with this counter instead of the estimator (an exact tokenizer, for instance). */
  counter?: TokenCounter;
}

/**
 * Estimates the prompt tokens of a text, a list of messages or a whole request, never counting
 * fewer than the real tokenizer on the content classes it was fitted on. Returns the breakdown by
 * prose, dense (tool) text and template overhead.
 *
 * @example
 * estimateTokens('Hello, world').total;
 * estimateTokens(fromOpenAIChat(body)).total; // messages + tool schemas + request overhead
 */
export function estimateTokens(
  input: string | readonly Message[] | Pick<ChatRequest, 'messages' | 'tools' | 'model'>,
  options: EstimateOptions = {},
): TokenBreakdown {
  const given: unknown = input;
  if (typeof given !== 'string' && !Array.isArray(given))
    requireObject(
      given,
      'estimateTokens',
      'a text, an array of normalized messages, or a request (fromOpenAIChat(body))',
    );
  const settings: unknown = options;
  if (typeof settings !== 'object' || settings === null)
    throw new SpillwayError(
      'invalid_argument',
      'estimateTokens takes options { model, family, counter } as its second argument',
    );
  const model =
    options.model ??
    (typeof input === 'object' && !Array.isArray(input) ? (input as ChatRequest).model : undefined);
  if (model !== undefined && typeof model !== 'string')
    throw new SpillwayError(
      'invalid_argument',
      `estimateTokens: model must be a model id string, got ${typeof model}`,
    );
  const counter = options.counter ?? createEstimator({ family: options.family ?? tokenizerFamilyOf(model) });
  if (typeof input === 'string') {
    const total = counter.count(input);
    return { prose: total, dense: 0, overhead: 0, total };
  }
  const cache = new EstimateCache(counter);
  if (Array.isArray(input)) {
    requireMessages(input, 'estimateTokens');
    return cache.messages(input as readonly Message[]);
  }
  // A request without tools is estimated as one with none; a wire body is refused with the converter to use.
  const asked = input as Pick<ChatRequest, 'messages'> & Partial<Pick<ChatRequest, 'tools'>>;
  const request = { ...asked, tools: asked.tools ?? [] };
  requireChatRequest({ format: 'openai', ...request }, 'estimateTokens');
  return cache.request(request);
}

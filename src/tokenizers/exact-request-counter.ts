import {
  type ChatRequest,
  type ChatTemplateCosts,
  EstimateCache,
  imageCostRuleOf,
  type TokenBreakdown,
} from '../core/index.js';
import type { ExactTokenCounter } from './exact-counter.js';
import { type ExactCounterForOptions, exactCounterFor } from './exact-counter-for.js';

/** Counts whole requests with an exact tokenizer and the template costs of the model's family. */
export interface ExactRequestCounter {
  readonly counter: ExactTokenCounter;
  readonly template: ChatTemplateCosts;
  /** Prompt tokens of a request: messages, tool definitions, template; cached per message object. */
  count(request: Pick<ChatRequest, 'messages' | 'tools'>): number;
  /** The same, by prose, dense text and template overhead. */
  breakdown(request: Pick<ChatRequest, 'messages' | 'tools'>): TokenBreakdown;
}

/**
 * An exact request counter for `model`: its exact tokenizer (loaded on first use) with its
 * template's costs, per-message cached. `undefined` when the model has no exact tokenizer installed.
 *
 * @example
 * const counter = await exactRequestCounter('gpt-4o');
 * counter?.count(fromOpenAIChat(body)); // what usage.prompt_tokens will say, for plain chat
 */
export async function exactRequestCounter(
  model: string | undefined,
  options: ExactCounterForOptions = {},
): Promise<ExactRequestCounter | undefined> {
  const counter = await exactCounterFor(model, options);
  if (!counter) return undefined;
  const template = counter.template;
  const cache = new EstimateCache(counter, { template, images: imageCostRuleOf(model) });
  return {
    counter,
    template,
    count: (request) => cache.request(request).total,
    breakdown: (request) => cache.request(request),
  };
}

import {
  CHATML_TEMPLATE,
  type ChatRequest,
  type ChatTemplateCosts,
  ESTIMATOR_TEMPLATE,
  EstimateCache,
  imageCostRuleOf,
  openAIChatTemplate,
  type TokenBreakdown,
} from '../core/index.js';
import type { ExactFamily, ExactTokenCounter } from './exact-counter.js';
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
 * The template costs that go with an exact family: OpenAI's documented chat format for o200k and
 * cl100k, Qwen's ChatML + Hermes (measured on the emulators) for Qwen, and the estimator's upper
 * figures for families whose template costs Spillway has not measured.
 */
export function templateCostsFor(family: ExactFamily): ChatTemplateCosts {
  if (family === 'o200k' || family === 'cl100k') return openAIChatTemplate(family);
  if (family === 'qwen2') return CHATML_TEMPLATE;
  return ESTIMATOR_TEMPLATE;
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
  const template = templateCostsFor(counter.family);
  const cache = new EstimateCache(counter, { template, images: imageCostRuleOf(model) });
  return {
    counter,
    template,
    count: (request) => cache.request(request).total,
    breakdown: (request) => cache.request(request),
  };
}

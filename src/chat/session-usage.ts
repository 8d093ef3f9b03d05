/**
 * @module
 * What a chat session has cost: requests, prompt tokens (read from the provider's prompt cache and
 * not), reply tokens, and the price of them when the config gives prices. Every provider call the
 * chat makes is counted, summaries of compactions included, through the client itself.
 */
import type { ChatRequest, Message } from '../core/index.js';
import type { ModelClient, ModelUsage } from '../providers/index.js';

/** Prices in US dollars per million tokens (`prices` in the config). */
export interface ChatPrices {
  input: number;
  /** Prompt tokens read from the cache (default: `input`). */
  cachedInput?: number;
  /** Prompt tokens written to the cache (Anthropic; default: `input`). */
  cacheWrite?: number;
  output: number;
}

/** A session's token figures. */
export interface UsageFigures {
  requests: number;
  promptTokens: number;
  /** Prompt tokens the provider said it read from its cache. */
  cachedTokens: number;
  /** Prompt tokens the provider said it wrote to its cache. */
  cacheWriteTokens: number;
  completionTokens: number;
  /** Requests whose reply stated no cache figure (older turns of a resumed session, servers that
   * do not report one): their prompt tokens count as uncached. */
  withoutCacheFigure: number;
}

/** What the figures cost, in US dollars. */
export interface UsageCost {
  uncachedInput: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
  total: number;
}

/** Figures of a session that made no request yet. */
export function emptyUsage(): UsageFigures {
  return {
    requests: 0,
    promptTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    completionTokens: 0,
    withoutCacheFigure: 0,
  };
}

/** The figures with one more request's usage added. */
export function addUsage(figures: UsageFigures, usage: ModelUsage): UsageFigures {
  const stated = usage.cachedTokens !== undefined || usage.cacheWriteTokens !== undefined;
  return {
    requests: figures.requests + 1,
    promptTokens: figures.promptTokens + usage.promptTokens,
    cachedTokens: figures.cachedTokens + (usage.cachedTokens ?? 0),
    cacheWriteTokens: figures.cacheWriteTokens + (usage.cacheWriteTokens ?? 0),
    completionTokens: figures.completionTokens + usage.completionTokens,
    withoutCacheFigure: figures.withoutCacheFigure + (stated ? 0 : 1),
  };
}

/** Prompt tokens neither read from nor written to the cache. */
export function uncachedTokens(figures: UsageFigures): number {
  return Math.max(0, figures.promptTokens - figures.cachedTokens - figures.cacheWriteTokens);
}

/**
 * What the figures cost at `prices` (per million tokens): uncached prompt tokens at `input`, cache
 * reads at `cachedInput`, cache writes at `cacheWrite`, reply tokens at `output`.
 *
 * @example
 * usageCost(figures, { input: 2.5, cachedInput: 1.25, output: 10 }).total; // 0.0421
 */
export function usageCost(figures: UsageFigures, prices: ChatPrices): UsageCost {
  const perToken = (price: number) => price / 1_000_000;
  const uncachedInput = uncachedTokens(figures) * perToken(prices.input);
  const cachedInput = figures.cachedTokens * perToken(prices.cachedInput ?? prices.input);
  const cacheWrite = figures.cacheWriteTokens * perToken(prices.cacheWrite ?? prices.input);
  const output = figures.completionTokens * perToken(prices.output);
  return {
    uncachedInput,
    cachedInput,
    cacheWrite,
    output,
    total: uncachedInput + cachedInput + cacheWrite + output,
  };
}

/**
 * A client that reports every reply with a usage to `onUsage`, with the request it answered (as
 * sent: pruned and compressed), and is otherwise the client it wraps.
 *
 * @example
 * const client = withUsageMeter(createChatClient(options), ({ usage }) => (figures = addUsage(figures, usage)));
 */
export function withUsageMeter(
  client: ModelClient,
  onUsage: (exchange: { usage: ModelUsage; request: ChatRequest; reply: Message }) => void,
): ModelClient {
  return {
    format: client.format,
    baseUrl: client.baseUrl,
    async send(request, options) {
      const response = await client.send(request, options);
      if (response.usage) onUsage({ usage: response.usage, request, reply: response.message });
      return response;
    },
  };
}

import { ConversationDriver, type OverflowPattern } from '../core/index.js';
import { resolveLimits } from '../models/index.js';
import type { SessionStore } from '../store/index.js';
import type { ChatModel } from './chat-session.js';
import { chooseReserve } from './choose-reserve.js';
import type { ReserveReason } from './format-limits.js';

/** Options of {@link resolveChatModel}. */
export interface ResolveChatModelOptions {
  model: string;
  baseUrl: string;
  format: 'openai' | 'anthropic';
  apiKey?: string;
  /** Configured limits (flags, config): used when the server, its gateway and the catalog state none. */
  contextLength?: number;
  outputCap?: number;
  /** Limits marked hard (flags, config): they win over everything. */
  hardContextLength?: number;
  hardOutputCap?: number;
  /** The configured reply reserve and safety share. */
  reserve?: number;
  safetyRatio?: number;
  /** The output cap of recovery's compaction summaries. */
  summaryMaxTokens?: number;
  /** Turns a new cut leaves room for (the manager's `cutRunway`). */
  cutRunway?: number;
  /** User overflow rows, tried before the catalog. */
  overflowPatterns?: readonly OverflowPattern[];
  store: SessionStore;
}

/**
 * A model made ready for a chat: its limits resolved in the one order (hard config > stated, from
 * the store > probed > discovered > claimed > catalog > config > fallback), the reserve chosen, and
 * the conversation's driver built on them.
 *
 * @example
 * const { driver, limits } = await resolveChatModel({ model: 'gpt-4o', baseUrl, format: 'openai', store });
 */
export async function resolveChatModel({
  model,
  baseUrl,
  format,
  apiKey,
  contextLength,
  outputCap,
  hardContextLength,
  hardOutputCap,
  reserve,
  safetyRatio,
  summaryMaxTokens,
  cutRunway,
  overflowPatterns = [],
  store,
}: ResolveChatModelOptions): Promise<ChatModel & { reserveReason: ReserveReason }> {
  const limits = await resolveLimits({
    model,
    baseUrl,
    ...(format === 'anthropic' ? { provider: 'anthropic' } : {}),
    config: {
      ...(contextLength === undefined ? {} : { contextLength }),
      ...(outputCap === undefined ? {} : { outputCap }),
    },
    hard: {
      ...(hardContextLength === undefined ? {} : { contextLength: hardContextLength }),
      ...(hardOutputCap === undefined ? {} : { outputCap: hardOutputCap }),
    },
    learned: store.learnedLimits(),
    ...(apiKey && format === 'openai' ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
  });
  const reserveTokens = chooseReserve({
    contextLength: limits.contextLength,
    ...(limits.outputCap === undefined ? {} : { outputCap: limits.outputCap }),
    ...(reserve === undefined ? {} : { reserve }),
  });
  // The model's own tokenizer, where its package is installed (gpt-tokenizer for OpenAI models):
  // a request the estimate alone cannot place is then counted exactly before it is sent.
  const { exactCounterFor } = await import('../tokenizers/index.js');
  const exact = await exactCounterFor(model);
  const driver = new ConversationDriver({
    model,
    ...(exact?.exact ? { exact } : {}),
    contextLength: limits.contextLength,
    ...(limits.outputCap === undefined ? {} : { outputCap: limits.outputCap }),
    ...(limits.windowCheck === undefined ? {} : { windowCheck: limits.windowCheck }),
    ...(reserveTokens === undefined ? {} : { reserve: reserveTokens }),
    ...(safetyRatio === undefined ? {} : { safetyRatio }),
    ...(summaryMaxTokens === undefined ? {} : { summaryMaxTokens }),
    ...(cutRunway === undefined ? {} : { cutRunway }),
    ...(overflowPatterns.length > 0 ? { overflowPatterns } : {}),
    // The chat continues with the history each send returns.
    adoptsHistory: true,
  });
  const reserveReason: ReserveReason =
    reserve !== undefined
      ? 'config'
      : reserveTokens === undefined && limits.outputCap !== undefined
        ? 'output cap'
        : 'default share';
  return {
    model,
    driver,
    limits,
    ...(reserveTokens === undefined ? {} : { reserve: reserveTokens }),
    reserveReason,
  };
}

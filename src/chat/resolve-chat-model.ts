import { ConversationDriver, type OverflowPattern, type ReserveReason, sendPolicy } from '../core/index.js';
import { resolveLimits, serverRoot } from '../models/index.js';
import type { SessionStore } from '../store/index.js';
import type { ChatModel } from './chat-session.js';

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
 * the store > probed > discovered > claimed > catalog > config > fallback), and the conversation's
 * driver built on them by the send policy.
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
    // What this server stated: another server that serves a model of the same name is another window.
    learned: store.learnedLimits({ scope: serverRoot(baseUrl) }),
    ...(apiKey && format === 'openai' ? { headers: { authorization: `Bearer ${apiKey}` } } : {}),
  });
  // The model's tokenizer as its id suggests, where its package is installed (gpt-tokenizer for
  // OpenAI models): once its counts agree with the provider's reports, a request the estimate alone
  // cannot place is counted with it before it is sent.
  const { exactCounterFor } = await import('../tokenizers/index.js');
  const tokenizer = await exactCounterFor(model);
  const policy = sendPolicy({
    surface: 'chat',
    model,
    limits,
    user: { reserve, safetyRatio, summaryMaxTokens, cutRunway, overflowPatterns },
    counting: tokenizer?.exact ? { tokenizer } : {},
  });
  const driver = new ConversationDriver(policy.driver);
  return {
    model,
    driver,
    limits,
    ...(reserve === undefined ? {} : { reserve }),
    reserveReason: policy.reserve,
  };
}

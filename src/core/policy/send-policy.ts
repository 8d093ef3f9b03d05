/**
 * @module
 * The send policy: one function turns what is known of the model (its limits), what the user set and
 * the surface a send is made from into the options of that conversation's driver. Every surface —
 * the library, the tool loop, the chat, the demo, the proxy and the AI SDK, OpenAI and Anthropic
 * adapters — and compaction's summary call get their driver from it, so a reserve, a clamp or a
 * retry rule cannot differ between them unless the surface itself is why.
 */
import type { ClampMode, WindowCheck } from '../budget/index.js';
import type { ConversationDriverOptions, HashText, MeasureRequest } from '../driver/index.js';
import { SpillwayError } from '../errors/index.js';
import type { OverflowPattern } from '../overflow/index.js';
import type { TokenCounter } from '../tokens/index.js';

/** Every surface a send is made from. */
export const SEND_SURFACES = [
  'library',
  'loop',
  'chat',
  'demo',
  'proxy',
  'ai-sdk',
  'openai',
  'anthropic',
] as const;

/** Where a send is made from. */
export type SendSurface = (typeof SEND_SURFACES)[number];

/** The surfaces whose caller continues with the history a send returns (a compaction is adopted). */
const ADOPTING: ReadonlySet<SendSurface> = new Set(['loop', 'chat', 'demo']);

/**
 * The surfaces that relay one reply to a client that already holds it once it is streamed: nothing
 * is resent on their behalf (a broken stream, a reply the window cut off, invalid tool arguments or a
 * silently truncated prompt go back to the client as they came). Overflows are still recovered: the
 * provider answered nothing.
 */
const RELAYING: ReadonlySet<SendSurface> = new Set(['proxy', 'ai-sdk', 'openai', 'anthropic']);

/** No resends: the retry classes of a relaying surface. */
export const NO_RESENDS = {
  streamInterrupted: 0,
  invalidToolArguments: 0,
  contextExhausted: 0,
  silentTruncation: 0,
} as const;

/**
 * Share of the prompt budget one tool run's results may take together when a tool returns (the
 * loop and the chat cut a larger result at execution; the newest run is never elided later).
 */
export const TOOL_RESULTS_SHARE = 0.5;

/** The limits in force for the model, as resolved (stated, probed, discovered, configured). */
export interface PolicyLimits {
  contextLength?: number;
  outputCap?: number;
  windowCheck?: WindowCheck;
}

/** What a user may set, from a config file, flags or an adapter's options. */
export interface UserSendOptions {
  /** Tokens kept for the reply when fitting; default what a reply needs (1,024, or less). */
  reserve?: number;
  safetyRatio?: number;
  /** When to set or lower `max_tokens`; a proxy only ever lowers it. */
  clamp?: ClampMode;
  cutRunway?: number;
  summaryMaxTokens?: number;
  overflowPatterns?: readonly OverflowPattern[];
  /** Estimate with this instead of Spillway's estimator. */
  counter?: TokenCounter;
  /** Whether a cut may elide old tool results (default true). */
  compress?: boolean;
  /** Whether the caller offers the `recall` tool. */
  recall?: boolean;
}

/** The counting a surface can offer beyond the estimate, strongest last. */
export interface PolicyCounting {
  /** The model's tokenizer as its id suggests: trusted once it agrees with the provider's reports. */
  tokenizer?: TokenCounter;
  /** A counter the caller vouches counts as the provider does. */
  exact?: TokenCounter;
  /** The provider's counting endpoint. */
  measure?: MeasureRequest;
}

/** Inputs of {@link sendPolicy}. */
export interface SendPolicyOptions {
  surface: SendSurface;
  model?: string;
  limits?: PolicyLimits;
  user?: UserSendOptions;
  counting?: PolicyCounting;
  /** The hash of remembered history prefixes (the proxy passes SHA-256). */
  hash?: HashText;
  /** Send every request as built: no fit, no clamp, no recovery (a baseline, a run without a window). */
  passthrough?: boolean;
}

/** Why the reply reserve is what it is. */
export type ReserveReason = 'config' | 'reply';

/** What the policy decided. */
export interface SendPolicy {
  /** The driver's options: `new ConversationDriver(policy.driver)`. */
  driver: ConversationDriverOptions;
  /** `config` when the user set the reserve; else it is what a reply needs (`DEFAULT_RESERVE`). */
  reserve: ReserveReason;
  /**
   * The most tokens one tool result may take when a tool returns, for a prompt budget and the
   * number of calls in the run: {@link TOOL_RESULTS_SHARE} of the budget, shared by the calls.
   */
  toolResultLimit: (options: { budget: number; calls: number }) => number;
}

/**
 * The driver options for a conversation on `surface`. The surface decides only what it must: whether
 * the caller adopts the history a send returns (loop, chat, demo), whether replies may be resent (not
 * where the client already holds them: proxy and SDK adapters), and that a proxy only ever lowers
 * `max_tokens` (a request that fits goes out as its client built it). Everything else — the reserve,
 * the safety share, counting, recovery — is the same everywhere.
 *
 * @example
 * const policy = sendPolicy({ surface: 'chat', model: 'gpt-4o', limits: { contextLength: 128_000 } });
 * const driver = new ConversationDriver(policy.driver);
 */
export function sendPolicy({
  surface,
  model,
  limits = {},
  user = {},
  counting = {},
  hash,
  passthrough,
}: SendPolicyOptions): SendPolicy {
  if (!(SEND_SURFACES as readonly string[]).includes(surface))
    throw new SpillwayError(
      'invalid_argument',
      `sendPolicy: surface must be one of ${SEND_SURFACES.join(', ')}, got ${JSON.stringify(surface)}`,
    );
  const clamp: ClampMode | undefined = surface === 'proxy' ? 'lower' : user.clamp;
  const driver = assignDefined<ConversationDriverOptions>(
    {},
    {
      model,
      contextLength: limits.contextLength,
      outputCap: limits.outputCap,
      windowCheck: limits.windowCheck,
      reserve: user.reserve,
      safetyRatio: user.safetyRatio,
      clamp,
      cutRunway: user.cutRunway,
      summaryMaxTokens: user.summaryMaxTokens,
      counter: user.counter,
      compress: user.compress,
      recall: user.recall,
      tokenizer: counting.tokenizer,
      exact: counting.exact,
      measure: counting.measure,
      hash,
      passthrough,
    },
  );
  if (user.overflowPatterns && user.overflowPatterns.length > 0)
    driver.overflowPatterns = user.overflowPatterns;
  if (ADOPTING.has(surface)) driver.adoptsHistory = true;
  if (RELAYING.has(surface)) driver.retry = { ...NO_RESENDS };
  return {
    driver,
    reserve: user.reserve === undefined ? 'reply' : 'config',
    toolResultLimit,
  };
}

/**
 * The most tokens one tool result may take when a tool returns: {@link TOOL_RESULTS_SHARE} of the
 * prompt budget, shared by the calls of the run. The loop cuts a larger result at execution; the
 * chat's file and command tools return at most this much (with how to read on).
 *
 * @example
 * toolResultLimit({ budget: 100_000, calls: 2 }); // 25000
 */
export function toolResultLimit({ budget, calls }: { budget: number; calls: number }): number {
  return Math.max(1, Math.floor((TOOL_RESULTS_SHARE * Math.max(0, budget)) / Math.max(1, calls)));
}

/**
 * `target` with each entry of `entries` whose value is set assigned to it. Assigned, not spread:
 * the proxy makes a policy per request, and spreading objects built at run time costs microseconds.
 */
function assignDefined<T extends object>(target: T, entries: { [K in keyof T]?: T[K] | undefined }): T {
  for (const key in entries) {
    const value = entries[key];
    if (value !== undefined) target[key] = value as T[typeof key];
  }
  return target;
}

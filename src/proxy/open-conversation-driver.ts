/**
 * @module
 * The driver of one proxied conversation: made for each request from the model's limits, the
 * model's calibration and the conversation's stored state, and saved back after the reply, so any
 * proxy instance sharing the store continues the conversation where the last one left it.
 */

import {
  type Calibration,
  type ChatRequest,
  ConversationDriver,
  createCalibration,
  type DriverState,
  isPlausibleWindow,
  type LearnedWindows,
  type ManagerState,
  sendPolicy,
  tokenizerFamilyOf,
} from '../core/index.js';
import { type LimitSourceKind, limitSourceKind } from '../models/index.js';
import { cachedEstimator } from './cached-estimator.js';
import type { ProxyModelSettings } from './proxy-config.js';
import type { ProxyRuntime } from './proxy-runtime.js';
import type { ConversationState } from './proxy-state.js';
import type { UpstreamLimits } from './resolve-upstream-limits.js';
import { sha256 } from './sha256.js';
import type { UpstreamCounters } from './upstream-counters.js';

/** Parts of the manager state kept per model by the store, not per conversation. */
const MODEL_STATE_KEYS = new Set(['calibration', 'learnedOutputCaps']);

/**
 * Where a window may come from for a conversation's own rejections to overrule it: a gateway's
 * claim, the catalog, the config's soft value or the fallback. A window the upstream stated, the
 * probe read or discovery found stands, and so does a hard config (each request is fitted to it
 * again, whatever a rejection taught the one before).
 */
const OVERRULED_SOURCES: ReadonlySet<LimitSourceKind> = new Set(['claimed', 'catalog', 'config', 'fallback']);

/**
 * The window this conversation's own rejections taught for its model, while it still applies: below
 * the window the upstream's limits give, and only when those are no stated, probed or discovered
 * figure, nor a hard config. A rejection without figures teaches a window (see
 * `recoverFromOverflow`) that no store keeps per model, since nothing matches it with the request
 * sent; kept with the conversation, it spares every later request of the conversation the same
 * rejection. A window the model's limits come to state later replaces it.
 */
export function conversationWindows(
  stored: unknown,
  model: string | undefined,
  limits: Pick<UpstreamLimits, 'contextLength' | 'source'>,
): LearnedWindows {
  if (model === undefined || typeof stored !== 'object' || stored === null) return {};
  if (!OVERRULED_SOURCES.has(limitSourceKind(limits.source.contextLength))) return {};
  const window = (stored as Record<string, unknown>)[model];
  if (typeof window !== 'number' || !isPlausibleWindow(window) || window >= limits.contextLength) return {};
  return { [model]: window };
}

/** Inputs of {@link openConversationDriver}. */
export interface OpenConversationDriverOptions {
  runtime: ProxyRuntime;
  request: ChatRequest;
  limits: UpstreamLimits;
  settings: ProxyModelSettings;
  conversation: ConversationState;
  calibration?: Calibration;
  /** The model's exact tokenizer and the upstream's counting endpoint, where there are. */
  counters?: UpstreamCounters;
}

/**
 * A driver for one request of a conversation, by the send policy for the proxy: the upstream's
 * limits, the proxy's overflow rows, `max_tokens` only ever lowered (a request without one goes out
 * without one), and the stored state. The client has each reply once it is relayed, so no retry
 * class resends; overflows are recovered once, with compactions remembered as prefix replacements
 * (SHA-256).
 */
export function openConversationDriver({
  runtime,
  request,
  limits,
  settings,
  conversation,
  calibration,
  counters = {},
}: OpenConversationDriverOptions): ConversationDriver {
  const policy = sendPolicy({
    surface: 'proxy',
    ...(request.model === undefined ? {} : { model: request.model }),
    limits,
    user: {
      counter: cachedEstimator(tokenizerFamilyOf(request.model)),
      reserve: settings.reserve,
      summaryMaxTokens: settings.summaryMaxTokens,
      cutRunway: settings.cutRunway,
      overflowPatterns: runtime.config?.overflowPatterns ?? [],
    },
    // The model's tokenizer as its id suggests: trusted only once it agrees with the upstream's reports.
    counting: {
      ...(counters.exact ? { tokenizer: counters.exact } : {}),
      ...(counters.measure ? { measure: counters.measure } : {}),
    },
    hash: sha256,
  });
  const driver = new ConversationDriver(policy.driver);
  const stored = conversation.driver ?? {};
  const manager = stored.manager as Partial<ManagerState> | undefined;
  driver.restore({
    manager: {
      ...manager,
      calibration: calibration ?? createCalibration(),
      learnedWindows: conversationWindows(manager?.learnedWindows, request.model, limits),
    },
    ...(stored.prefix === undefined ? {} : { prefix: stored.prefix as never }),
  });
  return driver;
}

/**
 * The conversation's part of a driver's state (`driver.state`, read once by the caller), to store;
 * `undefined` when it did not change.
 */
export function conversationStateOf(
  { manager, prefix }: DriverState,
  previous: ConversationState,
): ConversationState | undefined {
  const kept: Record<string, unknown> = {};
  // `for…in` and assignment: no array of pairs, no spread (this runs for every proxied request).
  for (const key in manager) {
    const value = manager[key as keyof typeof manager];
    if (!MODEL_STATE_KEYS.has(key) && value !== undefined) kept[key] = value;
  }
  const next: ConversationState = prefix
    ? { driver: { manager: kept, prefix } }
    : { driver: { manager: kept } };
  return sameData(next, previous) ? undefined : next;
}

/**
 * Whether two values are the same data as JSON writes it, key order aside (a property set to
 * `undefined` is none). Walked rather than written out twice: this runs for every proxied request.
 * Past `depth` levels it answers `false`, which only costs a write.
 */
export function sameData(a: unknown, b: unknown, depth = 32): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth === 0) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameData(a[index], b[index], depth - 1)) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    const value = left[key];
    if (value === undefined) continue;
    if (!sameData(value, right[key], depth - 1)) return false;
    keys++;
  }
  for (const key in right) if (right[key] !== undefined) keys--;
  return keys === 0;
}

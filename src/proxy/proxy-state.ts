/**
 * @module
 * The typed state the proxy keeps in a {@link ProxyStore}, all of it scoped to one upstream (a hash
 * of its address in every key) and all of it expiring: limits learned per model as evidence per
 * credential (see `learned-limits-record.ts`), calibration per model, and per conversation (keyed by
 * a hash of its head) the sticky parts of fitting. A store failure never fails a request: the read
 * gives nothing, the write is dropped, `onError` is told.
 */
import { createHash } from 'node:crypto';
import { type Calibration, parseCalibration } from '../core/index.js';
import { modelNameProblem } from '../models/index.js';
import {
  ANONYMOUS_CREDENTIAL,
  LEARNED_LIMITS_TTL_SECONDS,
  type LearnedLimitsRecord,
  type LearnedModelLimits,
  limitsForCredential,
  parseLearnedLimitsRecord,
  recordObservation,
  type SharedLimits,
} from './learned-limits-record.js';
import type { ProxyStore } from './proxy-store.js';

/**
 * Every key starts with this, so a shared Redis can hold other data too. `v2`: keys carry the
 * upstream's scope and learned limits are kept per credential (`v1` keys held limits per model for
 * every client, without expiry; nothing reads them any more).
 */
export const PROXY_KEY_PREFIX = 'spillway:proxy:v2:';

/** How long a conversation's state is kept after its last request (7 days). */
export const CONVERSATION_TTL_SECONDS = 7 * 24 * 3_600;

/** How long a model's calibration is kept after the last reply that updated it (7 days). */
export const CALIBRATION_TTL_SECONDS = 7 * 24 * 3_600;

/** The scope of an upstream in the store's keys: the first 16 hex digits of a SHA-256 of its root. */
export function upstreamScope(upstreamRoot: string): string {
  return createHash('sha256').update(upstreamRoot).digest('hex').slice(0, 16);
}

export type { LearnedModelLimits } from './learned-limits-record.js';

/** What is kept per conversation: its driver's sticky state (cuts, anchor, remembered compaction). */
export interface ConversationState {
  /** Driver state besides the model-level calibration and learned windows, which are kept per model. */
  driver?: {
    manager?: Record<string, unknown>;
    prefix?: unknown;
  };
}

function parse<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stored conversation, checked: a value another version (or a hand) wrote costs its state, not the request. */
function conversationOf(value: unknown): ConversationState {
  if (!isObject(value) || !isObject(value.driver)) return {};
  const { manager, prefix } = value.driver;
  // The driver checks each part again when it restores them; this only keeps the shape.
  return {
    driver: { ...(isObject(manager) ? { manager } : {}), ...(prefix === undefined ? {} : { prefix }) },
  };
}

/** One credential's observation of a model's limits, as `ProxyState.recordLearnedLimits` takes it. */
export interface LearnedLimitsObservation {
  /** A hash of the client's credential headers (`credentialIdentity`); none: the anonymous clients. */
  credential?: string | undefined;
  contextLength?: number;
  outputCap?: number;
  /** The window and output cap in force when it was observed (the base of the shared step's cap). */
  fromContextLength?: number;
  fromOutputCap?: number;
  /** The window discovery or the probe reports for the model, which confirms an equal observation. */
  discovered?: number;
}

/**
 * Typed access to the proxy's stored state for one upstream.
 *
 * @example
 * const state = new ProxyState({ store: createMemoryProxyStore(), scope: upstreamScope('http://vllm:8000') });
 * await state.recordLearnedLimits('glm5.2', { credential: 'a1…', contextLength: 21_000 });
 * await state.learnedLimits('glm5.2', 'a1…'); // { contextLength: 21000 }
 * await state.learnedLimits('glm5.2', 'b2…'); // {} until another credential or discovery confirms it
 */
export class ProxyState {
  readonly store: ProxyStore;
  readonly #scope: string;
  readonly #now: () => number;
  readonly #onError: (error: unknown, operation: string) => void;

  constructor({
    store,
    scope = '',
    now = Date.now,
    onError = () => undefined,
  }: {
    store: ProxyStore;
    /** What keeps two upstreams' state apart in one store (`upstreamScope(root)`). */
    scope?: string;
    now?: () => number;
    onError?: (error: unknown, operation: string) => void;
  }) {
    this.store = store;
    this.#scope = scope;
    this.#now = now;
    this.#onError = onError;
  }

  #key(kind: string, name: string): string {
    return `${PROXY_KEY_PREFIX}${kind}:${this.#scope}:${name}`;
  }

  async #get<T>(kind: string, name: string): Promise<T | undefined> {
    try {
      return parse<T>(await this.store.get(this.#key(kind, name)));
    } catch (error) {
      this.#onError(error, `read ${kind}`);
      return undefined;
    }
  }

  async #set(kind: string, name: string, value: unknown, ttlSeconds: number): Promise<void> {
    try {
      await this.store.set(this.#key(kind, name), JSON.stringify(value), { ttlSeconds });
    } catch (error) {
      this.#onError(error, `write ${kind}`);
    }
  }

  async #limitsRecord(model: string): Promise<LearnedLimitsRecord> {
    return parseLearnedLimitsRecord(await this.#get<unknown>('limits', model), this.#now());
  }

  /**
   * The limits learned for a model as one credential gets them: its own observations, else what
   * was confirmed for every client (none for an id no server lists: it is never a store key).
   */
  async learnedLimits(model: string, credential?: string): Promise<LearnedModelLimits> {
    if (modelNameProblem(model) !== undefined) return {};
    return limitsForCredential(await this.#limitsRecord(model), credential ?? ANONYMOUS_CREDENTIAL);
  }

  /**
   * Records what one credential observed (an overflow matched to its own request, a silent
   * truncation in its usage), for {@link LEARNED_LIMITS_TTL_SECONDS}; returns the figures every
   * client gets afterwards, and whether the observation changed them.
   */
  async recordLearnedLimits(
    model: string,
    observed: LearnedLimitsObservation,
  ): Promise<{ shared: SharedLimits; sharedChanged: boolean }> {
    if (modelNameProblem(model) !== undefined) return { shared: {}, sharedChanged: false };
    const { credential, discovered, ...figures } = observed;
    const before = await this.#limitsRecord(model);
    const record = recordObservation(before, {
      observation: { credential: credential ?? ANONYMOUS_CREDENTIAL, ...figures, at: this.#now() },
      ...(discovered === undefined ? {} : { discovered }),
    });
    await this.#set('limits', model, record, LEARNED_LIMITS_TTL_SECONDS);
    const sharedChanged =
      record.shared.contextLength?.value !== before.shared.contextLength?.value ||
      record.shared.outputCap?.value !== before.shared.outputCap?.value;
    return { shared: record.shared, sharedChanged };
  }

  /** The calibration observed for a model, if any. */
  async calibration(model: string): Promise<Calibration | undefined> {
    if (modelNameProblem(model) !== undefined) return undefined;
    return parseCalibration(await this.#get<unknown>('calibration', model));
  }

  /**
   * Saves the calibration a conversation of the model reached, for {@link CALIBRATION_TTL_SECONDS}:
   * the next new conversation starts from it until its own first reply is counted (the newest
   * writer wins).
   */
  async saveCalibration(model: string, calibration: Calibration): Promise<void> {
    if (modelNameProblem(model) !== undefined) return;
    await this.#set('calibration', model, calibration, CALIBRATION_TTL_SECONDS);
  }

  /** What is kept for one conversation; parts that are not what the proxy writes are dropped. */
  async conversation(key: string): Promise<ConversationState> {
    return conversationOf(await this.#get<unknown>('conversation', key));
  }

  /** Replaces what is kept for one conversation, for {@link CONVERSATION_TTL_SECONDS}. */
  async saveConversation(key: string, state: ConversationState): Promise<void> {
    await this.#set('conversation', key, state, CONVERSATION_TTL_SECONDS);
  }
}

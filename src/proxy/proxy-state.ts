/**
 * @module
 * The typed state the proxy keeps in a {@link ProxyStore}, all of it scoped to one upstream (a hash
 * of its address in every key) and all of it expiring: limits learned per model as evidence per
 * credential (see `learned-limits-record.ts`), calibration per model, and per conversation (keyed by
 * a hash of its head) the sticky parts of fitting. A store failure never fails a request: the read
 * gives nothing, the write is dropped, `onError` is told.
 */
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
import type { ProxyStore, ProxyStoreEntry } from './proxy-store.js';
import { sha256 } from './sha256.js';

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
  return sha256(upstreamRoot).slice(0, 16);
}

export type { LearnedModelLimits } from './learned-limits-record.js';

/** How many models' checked calibrations a proxy keeps in memory besides the store. */
const PARSED_CALIBRATIONS = 64;

/** What is kept per conversation: its driver's sticky state (cuts, anchor, remembered compaction). */
export interface ConversationState {
  /**
   * Driver state besides the model's calibration and output caps, which are kept per model; the
   * windows the conversation's own rejections taught are kept here (see `conversationWindows`).
   */
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
  /** The last calibration checked per model, with the text it was read from (least recently read first). */
  readonly #calibrations = new Map<string, { text: string; calibration: Calibration }>();

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

  /**
   * A model's calibration from its stored text: the one checked last time when the text is the same
   * (a calibration is refitted from its reports as it is checked; it is plain data nobody changes
   * in place, so one copy serves every request until the text changes).
   */
  #calibrationOf(model: string, text: string | undefined): Calibration | undefined {
    if (text === undefined) return undefined;
    const known = this.#calibrations.get(model);
    if (known?.text === text) return known.calibration;
    const calibration = parseCalibration(parse<unknown>(text));
    this.#calibrations.delete(model);
    if (this.#calibrations.size >= PARSED_CALIBRATIONS) {
      const oldest = this.#calibrations.keys().next().value;
      if (oldest !== undefined) this.#calibrations.delete(oldest);
    }
    if (calibration) this.#calibrations.set(model, { text, calibration });
    return calibration;
  }

  /** Several texts at once (one round trip); all `undefined` when the store fails. */
  async #getMany(entries: ReadonlyArray<{ kind: string; name: string }>): Promise<Array<string | undefined>> {
    if (entries.length === 0) return [];
    const keys = entries.map(({ kind, name }) => this.#key(kind, name));
    try {
      return this.store.getMany
        ? await this.store.getMany(keys)
        : await Promise.all(keys.map((key) => this.store.get(key)));
    } catch (error) {
      this.#onError(error, `read ${entries.map(({ kind }) => kind).join(', ')}`);
      return entries.map(() => undefined);
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

  /**
   * What a request of a conversation starts from, read in one round trip: the limits learned for
   * the model as the credential gets them, the model's calibration, and the conversation's state
   * (each as {@link learnedLimits}, {@link calibration} and {@link conversation} read it).
   */
  async requestState({
    model,
    credential,
    key,
  }: {
    model: string | undefined;
    credential?: string | undefined;
    key: string;
  }): Promise<{ learned: LearnedModelLimits; calibration?: Calibration; conversation: ConversationState }> {
    const named = model !== undefined && modelNameProblem(model) === undefined ? model : undefined;
    const reads = [
      { kind: 'conversation', name: key },
      ...(named === undefined
        ? []
        : [
            { kind: 'limits', name: named },
            { kind: 'calibration', name: named },
          ]),
    ];
    const [conversation, limits, calibration] = await this.#getMany(reads);
    const parsed = named === undefined ? undefined : this.#calibrationOf(named, calibration);
    return {
      learned:
        named === undefined
          ? {}
          : limitsForCredential(
              parseLearnedLimitsRecord(parse<unknown>(limits), this.#now()),
              credential ?? ANONYMOUS_CREDENTIAL,
            ),
      ...(parsed === undefined ? {} : { calibration: parsed }),
      conversation: conversationOf(parse<unknown>(conversation)),
    };
  }

  /**
   * Saves what a request changed, in one round trip (one commit in SQLite): the conversation's
   * state and the model's calibration, each only when given.
   */
  async saveRequestState({
    conversation,
    calibration,
  }: {
    conversation?: { key: string; state: ConversationState };
    calibration?: { model: string; calibration: Calibration };
  }): Promise<void> {
    const entries: ProxyStoreEntry[] = [];
    if (conversation)
      entries.push({
        key: this.#key('conversation', conversation.key),
        value: JSON.stringify(conversation.state),
        ttlSeconds: CONVERSATION_TTL_SECONDS,
      });
    if (calibration && modelNameProblem(calibration.model) === undefined)
      entries.push({
        key: this.#key('calibration', calibration.model),
        value: JSON.stringify(calibration.calibration),
        ttlSeconds: CALIBRATION_TTL_SECONDS,
      });
    if (entries.length === 0) return;
    try {
      if (this.store.setMany) await this.store.setMany(entries);
      else
        await Promise.all(entries.map(({ key, value, ...options }) => this.store.set(key, value, options)));
    } catch (error) {
      this.#onError(error, `write ${conversation ? 'conversation' : 'calibration'}`);
    }
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

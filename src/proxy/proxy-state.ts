/**
 * @module
 * The typed state the proxy keeps in a {@link ProxyStore}: limits learned per model, calibration per
 * model, and per conversation (keyed by a hash of its head) the sticky parts of fitting. A store
 * failure never fails a request: the read gives nothing, the write is dropped, `onError` is told.
 */
import type { Calibration, Message } from '../core/index.js';
import { modelNameProblem } from '../models/index.js';
import type { ProxyStore } from './proxy-store.js';

/** Every key starts with this, so a shared Redis can hold other data too. */
export const PROXY_KEY_PREFIX = 'spillway:proxy:v1:';

/** How long a conversation's state is kept after its last request (7 days). */
export const CONVERSATION_TTL_SECONDS = 7 * 24 * 3_600;

/** Limits learned from the upstream's overflow errors. */
export interface LearnedModelLimits {
  contextLength?: number;
  outputCap?: number;
}

/**
 * A replacement for a conversation's first `covered` messages (a compaction's summary), reused on
 * every later request whose prefix hashes the same, so the same history is sent as the same bytes.
 */
export interface StoredPrefix {
  covered: number;
  /** Hash of the normalized messages it replaces. */
  hash: string;
  /** Normalized messages, or `{ ref }` for the client's own message at that index (its head, say). */
  replacement: (Message | { ref: number })[];
}

/** What is kept per conversation. */
export interface ConversationState {
  prefix?: StoredPrefix;
  /** Manager state besides calibration and learned windows (sticky compression levels, …). */
  manager?: Record<string, unknown>;
}

function parse<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function isCalibration(value: unknown): value is Calibration {
  const candidate = value as Partial<Calibration> | undefined;
  return (
    typeof candidate?.factor === 'number' &&
    candidate.factor > 0 &&
    typeof candidate.seed === 'number' &&
    typeof candidate.observations === 'number'
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A stored conversation, checked: a value another version (or a hand) wrote costs its state, not the request. */
function conversationOf(value: unknown): ConversationState {
  if (!isObject(value)) return {};
  const state: ConversationState = {};
  const prefix = value.prefix;
  if (
    isObject(prefix) &&
    Number.isInteger(prefix.covered) &&
    typeof prefix.hash === 'string' &&
    Array.isArray(prefix.replacement) &&
    prefix.replacement.every(
      (entry) => isObject(entry) && (typeof entry.role === 'string' || Number.isInteger(entry.ref)),
    )
  )
    state.prefix = prefix as unknown as StoredPrefix;
  if (isObject(value.manager)) state.manager = value.manager;
  return state;
}

/**
 * Typed access to the proxy's stored state.
 *
 * @example
 * const state = new ProxyState({ store: createMemoryProxyStore() });
 * await state.saveLearnedLimits('glm5.2', { contextLength: 21_000 });
 * await state.learnedLimits('glm5.2'); // { contextLength: 21000 }
 */
export class ProxyState {
  readonly store: ProxyStore;
  readonly #onError: (error: unknown, operation: string) => void;

  constructor({
    store,
    onError = () => undefined,
  }: {
    store: ProxyStore;
    onError?: (error: unknown, operation: string) => void;
  }) {
    this.store = store;
    this.#onError = onError;
  }

  async #get<T>(key: string): Promise<T | undefined> {
    try {
      return parse<T>(await this.store.get(PROXY_KEY_PREFIX + key));
    } catch (error) {
      this.#onError(error, `read ${key.split(':')[0]}`);
      return undefined;
    }
  }

  async #set(key: string, value: unknown, ttlSeconds?: number): Promise<void> {
    try {
      await this.store.set(
        PROXY_KEY_PREFIX + key,
        JSON.stringify(value),
        ttlSeconds === undefined ? {} : { ttlSeconds },
      );
    } catch (error) {
      this.#onError(error, `write ${key.split(':')[0]}`);
    }
  }

  /** The limits learned for a model (none for an id no server lists: it is never a store key). */
  async learnedLimits(model: string): Promise<LearnedModelLimits> {
    if (modelNameProblem(model) !== undefined) return {};
    return (await this.#get<LearnedModelLimits>(`limits:${model}`)) ?? {};
  }

  /** Records learned limits, over what was known (the newest figure is the server's current one). */
  async saveLearnedLimits(model: string, limits: LearnedModelLimits): Promise<void> {
    if (modelNameProblem(model) !== undefined) return;
    const current = await this.learnedLimits(model);
    await this.#set(`limits:${model}`, { ...current, ...limits });
  }

  /** The calibration observed for a model, if any. */
  async calibration(model: string): Promise<Calibration | undefined> {
    if (modelNameProblem(model) !== undefined) return undefined;
    const value = await this.#get<unknown>(`calibration:${model}`);
    return isCalibration(value) ? value : undefined;
  }

  /** Saves a calibration; the factor only grows, also across instances writing at once. */
  async saveCalibration(model: string, calibration: Calibration): Promise<void> {
    if (modelNameProblem(model) !== undefined) return;
    const current = await this.calibration(model);
    if (current && current.factor >= calibration.factor) return;
    await this.#set(`calibration:${model}`, calibration);
  }

  /** What is kept for one conversation; parts that are not what the proxy writes are dropped. */
  async conversation(key: string): Promise<ConversationState> {
    return conversationOf(await this.#get<unknown>(`conversation:${key}`));
  }

  /** Replaces what is kept for one conversation, for {@link CONVERSATION_TTL_SECONDS}. */
  async saveConversation(key: string, state: ConversationState): Promise<void> {
    await this.#set(`conversation:${key}`, state, CONVERSATION_TTL_SECONDS);
  }
}

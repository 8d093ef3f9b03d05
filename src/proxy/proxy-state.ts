/**
 * @module
 * The typed state the proxy keeps in a {@link ProxyStore}: limits learned per model, calibration per
 * model, and per conversation (keyed by a hash of its head) the sticky parts of fitting. A store
 * failure never fails a request: the read gives nothing, the write is dropped, `onError` is told.
 */
import { type Calibration, parseCalibration } from '../core/index.js';
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
    return parseCalibration(await this.#get<unknown>(`calibration:${model}`));
  }

  /**
   * Saves the calibration a conversation of the model reached: the next new conversation starts from
   * it until its own first reply is counted (the newest writer wins).
   */
  async saveCalibration(model: string, calibration: Calibration): Promise<void> {
    if (modelNameProblem(model) !== undefined) return;
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

/**
 * @module
 * What a manager remembers of the requests it sent: the last one (what the next usage report is
 * about), the last one the provider counted (the anchor of the next count, surviving a failed send
 * of its extension), the last counted per tool set, an anchor restored from a saved state, the run's
 * head (a new head is a new run) and how much the conversation appends per send.
 */
import { nextAppendRate } from '../cut/index.js';
import type { EstimateCache, TokenBreakdown } from '../tokens/index.js';
import { type ChatRequest, digestItems, type Message } from '../transcript/index.js';
import { headRange } from '../transcript/split-turns.js';
import { type ManagerState, type PersistedAnchor, parseAnchor } from './manager-state.js';
import type { Anchor, RequestCount } from './request-count.js';
import {
  anchorOnPersisted,
  anchorOnSent,
  contentKey,
  persistAnchor,
  type SentRequest,
  sameItems,
  sentRequest,
} from './sent-request.js';

/** Tool sets remembered with their last counted request (the run's own, a synthesis, deferred tools). */
const TOOL_SETS = 4;

/** The requests one manager sent and had counted. */
export class CountedRequests {
  #last: SentRequest | undefined;
  #observed: SentRequest | undefined;
  readonly #countedByTools = new Map<string, SentRequest>();
  #restored: PersistedAnchor | undefined;
  #appendRate: number | undefined;
  #head: readonly Message[] | undefined;
  #headKey: string | undefined;

  /** The last request sent: what the next usage report is about. */
  get last(): SentRequest | undefined {
    return this.#last;
  }

  /** Tokens the conversation appends per send, lately. */
  get appendRate(): number | undefined {
    return this.#appendRate;
  }

  /** What the provider counted for the request `request` extends, and what was appended since. */
  anchorFor(request: Pick<ChatRequest, 'messages' | 'tools'>, cache: EstimateCache): Anchor | undefined {
    // A send that failed (no usage came back) leaves the last counted request as the anchor.
    const last = this.#counted();
    if (last === undefined && this.#restored) return anchorOnPersisted(this.#restored, request, cache);
    return (
      anchorOnSent(last, request, cache) ??
      anchorOnSent(this.#countedByTools.get(toolsKey(request.tools)), request, cache)
    );
  }

  /** The append rate follows what an anchored send adds to the counted prefix. */
  noteAppended(count: RequestCount): void {
    if (count.source !== 'anchored') return;
    const counted = this.#counted()?.anchor ?? this.#restored?.reported;
    if (counted === undefined) return;
    this.#appendRate = nextAppendRate(this.#appendRate, Math.max(0, count.tokens - counted));
  }

  /**
   * Records a fitted request as sent. `extendsCounted`: whether it may extend the counted request
   * (a request fitted elsewhere, by recovery, is recorded without that link).
   */
  recordSent(
    request: Pick<ChatRequest, 'messages' | 'tools'>,
    options: {
      breakdown: TokenBreakdown;
      model: string | undefined;
      cache: EstimateCache;
      extendsCounted: boolean;
    },
  ): void {
    const { breakdown, model, cache, extendsCounted } = options;
    this.#last = sentRequest(request, {
      breakdown,
      model,
      cache,
      ...(extendsCounted && this.#observed ? { previous: this.#observed } : {}),
      ...(extendsCounted && this.#restored ? { persisted: this.#restored } : {}),
    });
  }

  /** The provider counted the last request at `reported`: it anchors the next count. */
  recordReport(reported: number): void {
    const last = this.#last;
    if (last === undefined) return;
    last.anchor = reported;
    this.#observed = last;
    const key = toolsKey(last.tools);
    this.#countedByTools.delete(key);
    this.#countedByTools.set(key, last);
    for (const stale of this.#countedByTools.keys()) {
      if (this.#countedByTools.size <= TOOL_SETS) break;
      this.#countedByTools.delete(stale);
    }
  }

  /** The report for the last request was a truncated prompt: it anchors nothing. */
  dropLastReport(): void {
    const last = this.#last;
    if (last === undefined) return;
    last.anchor = undefined;
    if (this.#observed === last) this.#observed = undefined;
  }

  /** An exact count of a request that was not sent (a counting endpoint): the next fit counts from it. */
  recordCount(
    request: Pick<ChatRequest, 'messages' | 'tools'>,
    promptTokens: number,
    options: { breakdown: TokenBreakdown; model: string | undefined; cache: EstimateCache },
  ): void {
    this.#observed = { ...sentRequest(request, options), anchor: promptTokens };
    this.#last = undefined;
  }

  /** Whether `messages` start a new run (another head than the run's); the head is remembered. */
  isNewRun(messages: readonly Message[]): boolean {
    const headMessages = headOf(messages);
    if (this.#head !== undefined && sameItems(this.#head, headMessages)) return false;
    const key = headMessages.map(contentKey).join('\n');
    const changed = this.#headKey !== undefined && key !== this.#headKey;
    this.#head = headMessages;
    this.#headKey = key;
    return changed;
  }

  /** Forgets the run's requests (a new run); the head stays until the next fit replaces it. */
  forgetRun(): void {
    this.#last = undefined;
    this.#observed = undefined;
    this.#countedByTools.clear();
    this.#restored = undefined;
    this.#appendRate = undefined;
  }

  /** Forgets the run and its head. */
  reset(): void {
    this.forgetRun();
    this.#head = undefined;
    this.#headKey = undefined;
  }

  /** `messages` replace the history: their head is the run's; no anchor describes them. */
  rebase(messages: readonly Message[]): void {
    const headMessages = headOf(messages);
    this.#head = headMessages;
    this.#headKey = headMessages.map(contentKey).join('\n');
    this.#last = undefined;
    this.#observed = undefined;
    this.#countedByTools.clear();
    this.#restored = undefined;
  }

  /** The anchor and append rate as a manager's state carries them. */
  get state(): Pick<ManagerState, 'anchor' | 'appendRate'> {
    const counted = this.#counted();
    const anchor = (counted ? persistAnchor(counted) : undefined) ?? this.#restored;
    return {
      ...(anchor ? { anchor } : {}),
      ...(this.#appendRate === undefined ? {} : { appendRate: this.#appendRate }),
    };
  }

  /** Reads them back from a state; anything malformed is dropped. */
  restore(state: Partial<ManagerState>): void {
    this.#restored = parseAnchor(state.anchor);
    this.#appendRate =
      typeof state.appendRate === 'number' && state.appendRate >= 0 ? state.appendRate : undefined;
  }

  #counted(): SentRequest | undefined {
    return this.#last?.anchor !== undefined ? this.#last : this.#observed;
  }
}

function headOf(messages: readonly Message[]): readonly Message[] {
  const head = headRange(messages);
  return messages.slice(head.start, head.end);
}

/** The digest of a tool list, computed once per list. */
const TOOL_KEYS = new WeakMap<readonly object[], string>();
function toolsKey(tools: readonly object[]): string {
  let key = TOOL_KEYS.get(tools);
  if (key === undefined) {
    key = digestItems(tools);
    TOOL_KEYS.set(tools, key);
  }
  return key;
}

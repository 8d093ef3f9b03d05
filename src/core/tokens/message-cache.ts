import { SpillwayError } from '../errors/index.js';
import type { ChatRequest, Message, ToolDefinition } from '../transcript/index.js';
import { createEstimator, isEstimator } from './estimator.js';
import {
  addBreakdown,
  countMessage,
  emptyBreakdown,
  estimateTools,
  type MessageCount,
  type RenderCosts,
  type TokenBreakdown,
} from './message-estimate.js';
import { ESTIMATOR_TEMPLATE } from './overheads.js';
import type { TokenCounter } from './token-counter.js';
import type { TokenizerFamily } from './tokenizer-family.js';

/**
 * The index of the last user message that is a new query: a user message that only continues a
 * tool-result message on the wire (Anthropic text beside `tool_result` blocks) does not end the
 * tool loop, so it does not count. -1 when there is none.
 */
export function lastQueryIndex(messages: readonly Message[]): number {
  return lastQueryIn(messages, 0, messages.length);
}

function isQuery(message: Message): boolean {
  return message.role === 'user' && message.wire?.attached !== true;
}

/** The last user query among the messages `[start, end)`, -1 when there is none. */
function lastQueryIn(messages: readonly Message[], start: number, end: number): number {
  for (let index = end - 1; index >= start; index--) if (isQuery(messages[index] as Message)) return index;
  return -1;
}

/**
 * {@link lastQueryIndex} of `messages`, whose first `shared` messages are `run`'s: only the messages
 * after them are looked at when the run's last query is among them (a tool loop's history has its
 * last query near its start, so a scan from the end would read every message).
 */
function lastQueryWith(messages: readonly Message[], run: RunningTotal, shared: number): number {
  const after = lastQueryIn(messages, shared, messages.length);
  if (after !== -1) return after;
  return run.last < shared ? run.last : lastQueryIn(messages, 0, shared);
}

/** Lists shorter than this are summed afresh: a running total would cost more than it saves. */
const MIN_RUN_LENGTH = 32;
/** Running totals kept per cache: the history, the fitted request, a candidate cut or two. */
const MAX_RUNS = 4;

/** The totals of a list after each of its messages: `totals[4 * i …]` holds them before message `i`. */
interface RunningTotal {
  messages: Message[];
  /** The list's last user query: reasoning before it counted nothing. */
  last: number;
  /** prose, dense, overhead and total, four numbers per position. */
  totals: number[];
}

function newRun(): RunningTotal {
  return { messages: [], last: -1, totals: [0, 0, 0, 0] };
}

/** The first `length` messages of `run`, with their totals, as a run of its own. */
function truncatedRun(run: RunningTotal, length: number): RunningTotal {
  return {
    messages: run.messages.slice(0, length),
    last: run.last,
    totals: run.totals.slice(0, 4 * length + 4),
  };
}

/** How many leading items two lists share (the same objects). */
function sharedPrefix(a: readonly object[], b: readonly object[]): number {
  const length = Math.min(a.length, b.length);
  if (length === 0 || a[0] !== b[0]) return 0;
  let index = 1;
  while (index < length && a[index] === b[index]) index++;
  return index;
}

/**
 * `counter` with every count checked, unless it is Spillway's estimator: a count that is not a number
 * of tokens (NaN, negative, a string) would be summed into every total and every verdict, so it
 * stops the count with an error naming the counter instead.
 */
function checkedCounter(counter: TokenCounter): TokenCounter {
  if (isEstimator(counter)) return counter;
  const count = (text: string): number => {
    const tokens = counter.count(text);
    if (typeof tokens === 'number' && tokens >= 0 && tokens < Number.POSITIVE_INFINITY) return tokens;
    throw new SpillwayError(
      'invalid_config',
      `the counter ${counter.name} gave ${String(tokens)} for a text of ${text.length} characters: a count must be a number of tokens, at least 0`,
    );
  };
  return counter.template === undefined
    ? { name: counter.name, count }
    : { name: counter.name, count, template: counter.template };
}

/**
 * Per-message counts, computed once per message object. Fitting a transcript that grew by k
 * messages counts only those k; the others are looked up. Messages are keyed by identity, so a
 * message must be replaced, not mutated, when it changes.
 *
 * It counts what the server renders: reasoning of assistant messages before the last user query
 * counts 0, because chat templates drop it (Qwen3's template keeps `reasoning_content` only after
 * `last_query_index`; DeepSeek-R1's keeps only the text after `</think>`; gpt-oss's drops the
 * analysis channel of turns that ended in a final answer; Anthropic ignores thinking blocks of
 * earlier turns); reasoning after it, inside the current tool loop, counts.
 *
 * With the default costs it is the estimator's cache; given an exact counter and the model's
 * template costs (`openAIChatTemplate()`, `CHATML_TEMPLATE`), or a counter that names its template
 * (`exactCounterFor(model)` does), it is an exact request counter.
 *
 * @example
 * const exact = new EstimateCache(counter, { template: openAIChatTemplate('o200k'), images: 'openai' });
 * exact.request(request).total; // messages, tool definitions and reply priming, as OpenAI counts them
 */
export class EstimateCache {
  readonly counter: TokenCounter;
  readonly costs: Required<RenderCosts>;
  readonly #messages = new WeakMap<Message, MessageCount>();
  readonly #tools = new WeakMap<readonly ToolDefinition[], TokenBreakdown>();
  /** The last tool list counted: a request read anew has a new list of the same definitions. */
  #lastTools: { tools: readonly ToolDefinition[]; estimate: TokenBreakdown } | undefined;
  /** Running totals of the longest lists counted lately, most recently made last. */
  readonly #runs: RunningTotal[] = [];
  #misses = 0;

  constructor(
    counter: TokenCounter,
    { template = counter.template ?? ESTIMATOR_TEMPLATE, images = 'conservative' }: RenderCosts = {},
  ) {
    this.counter = checkedCounter(counter);
    this.costs = { template, images };
  }

  /** How many messages were estimated rather than looked up (for tests and benchmarks). */
  get misses(): number {
    return this.#misses;
  }

  #count(message: Message): MessageCount {
    let count = this.#messages.get(message);
    if (!count) {
      count = countMessage(message, this.counter, this.costs);
      this.#messages.set(message, count);
      this.#misses++;
    }
    return count;
  }

  /** One message, its reasoning included (as it counts when it comes after the last user query). */
  message(message: Message): TokenBreakdown {
    return this.#count(message).breakdown;
  }

  tools(tools: readonly ToolDefinition[]): TokenBreakdown {
    if (tools.length === 0) return emptyBreakdown();
    let estimate = this.#tools.get(tools);
    if (!estimate) {
      const last = this.#lastTools;
      estimate =
        last !== undefined && sharedPrefix(tools, last.tools) === Math.max(tools.length, last.tools.length)
          ? last.estimate
          : estimateTools(tools, this.counter, this.costs);
      this.#tools.set(tools, estimate);
    }
    this.#lastTools = { tools, estimate };
    return estimate;
  }

  /**
   * The raw (uncalibrated) count of a list of messages, reasoning before its last user query dropped.
   * A list that starts with the messages of one counted before (the same objects) is counted from
   * where that one's running total stood: a resent history costs a comparison per message.
   */
  messages(messages: readonly Message[]): TokenBreakdown {
    if (messages.length < MIN_RUN_LENGTH) return this.#sum(messages, lastQueryIndex(messages), newRun(), 0);
    const runs = this.#runs;
    const shares = runs.map((run) => sharedPrefix(messages, run.messages));
    let widest = -1;
    for (let at = 0; at < runs.length; at++)
      if (widest === -1 || (shares[at] as number) > (shares[widest] as number)) widest = at;
    const last =
      widest === -1
        ? lastQueryIndex(messages)
        : lastQueryWith(messages, runs[widest] as RunningTotal, shares[widest] as number);
    let best: RunningTotal | undefined;
    let reuse = 0;
    for (let at = 0; at < runs.length; at++) {
      const run = runs[at] as RunningTotal;
      const shared = shares[at] as number;
      // Reasoning before the last query counts nothing: totals agree only where both lists drop the same.
      const usable = run.last === last ? shared : Math.min(shared, last + 1, run.last + 1);
      if (usable > reuse) {
        best = run;
        reuse = usable;
      }
    }
    if (best !== undefined && reuse === messages.length) {
      const at = 4 * reuse;
      const [prose, dense, overhead, total] = best.totals.slice(at, at + 4) as [
        number,
        number,
        number,
        number,
      ];
      return { prose, dense, overhead, total };
    }
    let run: RunningTotal;
    if (best !== undefined && reuse === best.messages.length && best.last === last) run = best;
    else {
      run = best === undefined ? newRun() : truncatedRun(best, reuse);
      run.last = last;
      this.#runs.push(run);
      if (this.#runs.length > MAX_RUNS) this.#runs.shift();
    }
    return this.#sum(messages, last, run, run.messages.length);
  }

  /** Adds `messages` from `start` on to `run` (which holds the totals up to `start`); the total. */
  #sum(messages: readonly Message[], last: number, run: RunningTotal, start: number): TokenBreakdown {
    const totals = run.totals;
    let at = 4 * start;
    let prose = totals[at] as number;
    let dense = totals[at + 1] as number;
    let overhead = totals[at + 2] as number;
    let total = totals[at + 3] as number;
    for (let index = start; index < messages.length; index++) {
      const message = messages[index] as Message;
      const { breakdown, reasoning } = this.#count(message);
      prose += breakdown.prose;
      dense += breakdown.dense;
      overhead += breakdown.overhead;
      total += breakdown.total;
      if (index < last && message.role === 'assistant') {
        prose -= reasoning.prose;
        dense -= reasoning.dense;
        total -= reasoning.prose + reasoning.dense;
      }
      run.messages.push(message);
      at += 4;
      totals[at] = prose;
      totals[at + 1] = dense;
      totals[at + 2] = overhead;
      totals[at + 3] = total;
    }
    return { prose, dense, overhead, total };
  }

  /** The raw count of a whole request: messages, tool schemas and the per-request overhead. */
  request(request: Pick<ChatRequest, 'messages' | 'tools'>): TokenBreakdown {
    const total = this.messages(request.messages);
    addBreakdown(total, this.tools(request.tools));
    const { template } = this.costs;
    const fixed = template.request + (request.messages[0]?.role === 'system' ? 0 : template.defaultSystem);
    total.overhead += fixed;
    total.total += fixed;
    return total;
  }
}

/** Shared caches of counters with their own costs: by counter object, and by family for the estimator. */
const SHARED = new WeakMap<TokenCounter, EstimateCache>();
const SHARED_ESTIMATORS = new Map<string, EstimateCache>();

/**
 * The process's estimate cache for `counter` with the default costs (its own template's, where it
 * names one): every manager counting with the same counter (a proxy makes one per request; an
 * adapter one per model) looks up what another counted. Entries live as long as their message
 * objects (the converters keep those they read, within their bound), so the memory is bounded with
 * them. Without a counter, the estimator of `family`.
 *
 * @example
 * const cache = estimateCacheFor({ family: tokenizerFamilyOf(model) });
 * cache.request(request).total;
 */
export function estimateCacheFor({
  counter,
  family = 'o200k',
}: {
  counter?: TokenCounter;
  family?: TokenizerFamily;
}): EstimateCache {
  if (counter !== undefined) {
    let cache = SHARED.get(counter);
    if (cache === undefined) {
      cache = new EstimateCache(counter);
      SHARED.set(counter, cache);
    }
    return cache;
  }
  let cache = SHARED_ESTIMATORS.get(family);
  if (cache === undefined) {
    cache = new EstimateCache(createEstimator({ family }));
    SHARED_ESTIMATORS.set(family, cache);
  }
  return cache;
}

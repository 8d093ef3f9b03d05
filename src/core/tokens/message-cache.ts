import type { ChatRequest, Message, ToolDefinition } from '../transcript/index.js';
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

/**
 * The index of the last user message that is a new query: a user message that only continues a
 * tool-result message on the wire (Anthropic text beside `tool_result` blocks) does not end the
 * tool loop, so it does not count. -1 when there is none.
 */
export function lastQueryIndex(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role === 'user' && message.wire?.attached !== true) return index;
  }
  return -1;
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
 * template costs (`openAIChatTemplate()`, `CHATML_TEMPLATE`), it is an exact request counter.
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
  #misses = 0;

  constructor(
    counter: TokenCounter,
    { template = ESTIMATOR_TEMPLATE, images = 'conservative' }: RenderCosts = {},
  ) {
    this.counter = counter;
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
      estimate = estimateTools(tools, this.counter, this.costs);
      this.#tools.set(tools, estimate);
    }
    return estimate;
  }

  /** The raw (uncalibrated) count of a list of messages, reasoning before its last user query dropped. */
  messages(messages: readonly Message[]): TokenBreakdown {
    const total = emptyBreakdown();
    const last = lastQueryIndex(messages);
    messages.forEach((message, index) => {
      const { breakdown, reasoning } = this.#count(message);
      addBreakdown(total, breakdown);
      if (index < last && message.role === 'assistant') {
        total.prose -= reasoning.prose;
        total.dense -= reasoning.dense;
        total.total -= reasoning.prose + reasoning.dense;
      }
    });
    return total;
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

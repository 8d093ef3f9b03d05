import type { ChatRequest, Message, ToolDefinition } from '../transcript/index.js';
import {
  addBreakdown,
  emptyBreakdown,
  estimateMessage,
  estimateTools,
  type TokenBreakdown,
} from './message-estimate.js';
import { REQUEST_OVERHEAD } from './overheads.js';
import type { TokenCounter } from './token-counter.js';

/**
 * Per-message estimates, computed once per message object. Fitting a transcript that grew by k
 * messages estimates only those k; the others are looked up. Messages are keyed by identity, so a
 * message must be replaced, not mutated, when it changes.
 */
export class EstimateCache {
  readonly counter: TokenCounter;
  readonly #messages = new WeakMap<Message, TokenBreakdown>();
  readonly #tools = new WeakMap<readonly ToolDefinition[], TokenBreakdown>();
  #misses = 0;

  constructor(counter: TokenCounter) {
    this.counter = counter;
  }

  /** How many messages were estimated rather than looked up (for tests and benchmarks). */
  get misses(): number {
    return this.#misses;
  }

  message(message: Message): TokenBreakdown {
    let estimate = this.#messages.get(message);
    if (!estimate) {
      estimate = estimateMessage(message, this.counter);
      this.#messages.set(message, estimate);
      this.#misses++;
    }
    return estimate;
  }

  tools(tools: readonly ToolDefinition[]): TokenBreakdown {
    if (tools.length === 0) return emptyBreakdown();
    let estimate = this.#tools.get(tools);
    if (!estimate) {
      estimate = estimateTools(tools, this.counter);
      this.#tools.set(tools, estimate);
    }
    return estimate;
  }

  /** The raw (uncalibrated) estimate of a list of messages. */
  messages(messages: readonly Message[]): TokenBreakdown {
    const total = emptyBreakdown();
    for (const message of messages) addBreakdown(total, this.message(message));
    return total;
  }

  /** The raw estimate of a whole request: messages, tool schemas and the per-request overhead. */
  request(request: Pick<ChatRequest, 'messages' | 'tools'>): TokenBreakdown {
    const total = this.messages(request.messages);
    addBreakdown(total, this.tools(request.tools));
    total.overhead += REQUEST_OVERHEAD;
    total.total += REQUEST_OVERHEAD;
    return total;
  }
}

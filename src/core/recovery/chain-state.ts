/**
 * @module
 * The working state of the escalation chain: the history as the steps have left it, the
 * placeholders they put in (and what each stands for), and how a candidate is measured and accepted.
 */
import type { RecallSpan } from '../compact/index.js';
import type { RequestMeasure } from '../manager/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import { type RecoveryContext, statesLowerBound, tryFit } from './recovery-context.js';
import type { RecoveryResult } from './recovery-result.js';
import { smallestTranscript } from './smallest-request.js';

/** A placeholder's span, with the placeholder message itself. */
type PlacedSpan = RecallSpan & { placeholder: Message };

export class ChainState {
  readonly context: RecoveryContext;
  /** The request the chain works on: the caller's, without a `max_tokens` the window has no room for. */
  readonly base: ChatRequest;
  /** The `max_tokens` the caller asked for; a retry never asks for more. */
  readonly requested: number | undefined;
  /** The smallest request there can be, and its measure. */
  readonly floor: Message[];
  readonly floorMeasure: RequestMeasure;
  /** The history as the steps so far left it. */
  current: Message[];
  /** The budget candidates are held to (the forced prune's measure sets it). */
  budget: number;
  readonly #originals: Set<Message>;
  readonly #standsFor = new Map<Message, Message[]>();
  readonly #spans: PlacedSpan[] = [];
  /** The rejected request's prompt count as the provider stated it, when it did. */
  readonly #stated: StatedPrompt | undefined;

  constructor(context: RecoveryContext) {
    this.context = context;
    this.requested = context.base.maxTokens;
    this.base = withoutStaleMaxTokens(context);
    this.current = this.base.messages;
    this.#originals = new Set(this.base.messages);
    this.#stated = statedPrompt(context, (messages) => this.measure(messages).low);
    const empty = this.estimate([]);
    this.floor = smallestTranscript(this.current, (message) => this.estimate([message]) - empty);
    this.floorMeasure = this.measure(this.floor);
    this.budget = this.measure(this.current).budget;
  }

  measure(messages: readonly Message[]): RequestMeasure {
    return this.context.manager.measure({ ...this.base, messages: messages as Message[] });
  }

  estimate = (messages: readonly Message[]): number => this.measure(messages).estimate;

  /**
   * What a candidate counts at most, in the budget's terms: its estimate, or, when it keeps messages
   * of the rejected request whose count the provider stated, that figure less the least the messages
   * it left out count, plus the estimate of the messages it has in their place, whichever is smaller.
   * A stated count is the provider's own, so it needs no safety share (the estimate's margin covers
   * what changed): it is compared with the budget as the window less the reply's reserve would be.
   */
  bound = (messages: readonly Message[]): number => {
    const estimate = this.estimate(messages);
    const stated = this.#stated;
    if (stated === undefined) return estimate;
    const kept = new Set(messages);
    const left = stated.messages.filter((message) => !kept.has(message));
    if (left.length === stated.messages.length) return estimate;
    const sent = new Set(stated.messages);
    const added = messages.filter((message) => !sent.has(message));
    const none = this.measure([]);
    const fromStated =
      stated.input - (this.measure(left).low - none.low) + (this.estimate(added) - none.estimate);
    const safety = Math.max(0, none.window - none.reserve - this.budget);
    return Math.min(estimate, Math.ceil(fromStated) - safety);
  };

  fits = (messages: Message[]): boolean => this.bound(messages) <= this.budget;

  /** Notes a placeholder and the messages it took out (placeholders of earlier steps resolved). */
  record(placeholder: Message, removed: readonly Message[], span: Omit<RecallSpan, 'messages'>): void {
    const stood = removed
      .flatMap((message) => this.#standsFor.get(message) ?? [message])
      .filter((message) => this.#originals.has(message));
    this.#standsFor.set(placeholder, stood);
    this.#spans.push({ ...span, messages: stood, placeholder });
  }

  /**
   * The result for a history that a step made: fitted again (with the run rebased on it), its
   * `max_tokens` never above the caller's and never past the window. `undefined` when it still does
   * not fit.
   */
  accept(action: 'compacted' | 'truncated' | 'fallback', messages: Message[]): RecoveryResult | undefined {
    const { manager } = this.context;
    manager.rebase({ messages });
    const fitted = tryFit(manager, { ...this.base, messages });
    if (fitted === undefined) {
      this.context.steps.push({ step: 'refit_failed', after: action });
      return undefined;
    }
    const kept = new Set(messages);
    const retry = fitted.request;
    if (this.requested !== undefined && retry.maxTokens !== undefined && retry.maxTokens > this.requested)
      retry.maxTokens = this.requested;
    // The clamp never goes below 1,024, which a tiny window cannot hold: a retry must fit.
    if (retry.maxTokens !== undefined && fitted.estimate + retry.maxTokens > fitted.window)
      retry.maxTokens = Math.max(1, fitted.window - fitted.estimate);
    return this.context.finish({
      action,
      request: retry,
      messages,
      removed: this.base.messages.filter((message) => !kept.has(message)),
      recall: this.#spans
        .filter((span) => kept.has(span.placeholder))
        .map(({ placeholder: _, ...span }) => span),
    });
  }
}

/** The prompt count a provider stated for the request it rejected, with that request's least count. */
interface StatedPrompt {
  messages: readonly Message[];
  input: number;
  low: number;
}

/**
 * The rejected request's count, when the rejection states it in tokens (not vLLM's lower bound) and
 * the request sent is known apart from the history (`history` passed beside it).
 */
function statedPrompt(
  context: RecoveryContext,
  lowOf: (messages: readonly Message[]) => number,
): StatedPrompt | undefined {
  const { overflow, options } = context;
  if (overflow.input === undefined || overflow.units === 'characters' || statesLowerBound(overflow))
    return undefined;
  if (options.history === undefined) return undefined;
  const { messages } = options.request;
  return { messages, input: overflow.input, low: lowOf(messages) };
}

/**
 * A `max_tokens` that leaves no room in the learned window (a clamp made for the old one, usually)
 * is not kept as the reply's reserve: the retry is clamped again, never above it.
 */
function withoutStaleMaxTokens(context: RecoveryContext): ChatRequest {
  const { base, manager } = context;
  if (base.maxTokens === undefined) return base;
  const floor = smallestTranscript(base.messages);
  const withIt = manager.measure({ ...base, messages: floor });
  const { maxTokens, ...withoutMax } = base;
  if (withIt.estimate <= withIt.budget) return base;
  if (manager.measure({ ...withoutMax, messages: floor }).budget < withIt.estimate) return base;
  context.steps.push({ step: 'drop_max_tokens', maxTokens, window: withIt.window });
  return withoutMax;
}

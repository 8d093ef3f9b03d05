/**
 * @module
 * What every adapter does around one provider call: a manager per model (limits from the catalog,
 * overridable), the fit, the usage fed back, and one recovery and retry on an overflow.
 */
import {
  type ChatRequest,
  ContextWindowManager,
  classifyOverflow,
  type FitResult,
  type ManagerEvent,
  recoverFromOverflow,
  type Summarizer,
  type UsageReport,
} from '../../core/index.js';
import { resolveLimits } from '../../models/index.js';
import type { AdapterEvent, SpillwayAdapterOptions } from './adapter-options.js';

/** One fitted call: the caller's request, what fitting did, and the manager that did it. */
export interface FittedCall {
  model: string;
  manager: ContextWindowManager;
  /** The request as the caller made it. */
  original: ChatRequest;
  fit: FitResult;
}

/** Inputs of {@link AdapterSession.send}. */
export interface SendOptions<T> {
  call: FittedCall;
  /** Sends `call.fit.request`. */
  attempt: () => PromiseLike<T>;
  /** Sends the request the recovery built (once). */
  retry: (request: ChatRequest) => PromiseLike<T>;
  /** Writes compaction summaries for the recovery chain (the wrapped model or client itself). */
  summarize?: Summarizer;
  signal?: AbortSignal;
}

/**
 * The state an adapter keeps across calls: one {@link ContextWindowManager} per model (or the one
 * the caller gave), and the event sink. One session serves one
 * wrapped model or client; a call whose system prompt and first user message differ from the last
 * one's starts a new run in the manager, so consecutive runs do not share calibration.
 */
export class AdapterSession {
  readonly #options: SpillwayAdapterOptions;
  readonly #managers = new Map<string, Promise<ContextWindowManager>>();

  constructor(options: SpillwayAdapterOptions = {}) {
    this.#options = options;
  }

  /** Fits a request with the manager of its model; throws `ContextTruncatedError` when nothing fits. */
  async fit(original: ChatRequest, { provider }: { provider?: string } = {}): Promise<FittedCall> {
    const model = original.model ?? '';
    const manager = await this.#managerFor(model, this.#options.provider ?? provider);
    let fit = this.#withEvents(manager, model, () => manager.fit(original));
    // An output cap a provider stated also bounds a reply cap the caller chose, which the clamp keeps.
    const cap = manager.state.learnedOutputCaps?.[model];
    if (cap !== undefined && fit.request.maxTokens !== undefined && fit.request.maxTokens > cap)
      fit = { ...fit, request: { ...fit.request, maxTokens: cap } };
    return { model, manager, original, fit };
  }

  /** Feeds the prompt tokens the provider reported for the call's last send back to its manager. */
  observe(call: FittedCall, usage: UsageReport): void {
    if (!(usage.promptTokens > 0)) return;
    this.#withEvents(call.manager, call.model, () => call.manager.observe(usage));
    this.#emit({ type: 'usage', model: call.model, ...usage });
  }

  /**
   * Sends a fitted call. On an overflow (classified by `classifyOverflow` from the error the client
   * threw) it recovers (which learns the stated window) and retries once. Any other error, a
   * recovery that gives up and a failed retry reject with the provider's error as it is, except
   * when recovery found that nothing can fit: that rejects with its `ContextTruncatedError`.
   */
  async send<T>({ call, attempt, retry, summarize, signal }: SendOptions<T>): Promise<T> {
    try {
      return await attempt();
    } catch (error) {
      const { fit, manager, model } = call;
      const overflow = classifyOverflow({ error, lastEstimate: fit.estimate, window: fit.window });
      if (overflow.kind === 'none' || signal?.aborted) throw error;
      const status = statusOf(error);
      this.#emit({
        type: 'overflow',
        model,
        kind: overflow.kind,
        pattern: overflow.pattern,
        ...(status === undefined ? {} : { status }),
      });
      // Core's chain: it fits the caller's request again, learns the stated window, and compacts
      // with the wrapped model when pruning is not enough.
      const result = await this.#withEvents(manager, model, () =>
        recoverFromOverflow({
          request: call.original,
          overflow,
          manager,
          ...(summarize ? { summarize } : {}),
          ...(signal ? { signal } : {}),
          ...(this.#options.summaryMaxTokens === undefined
            ? {}
            : { summaryMaxTokens: this.#options.summaryMaxTokens }),
        }),
      );
      this.#emit({
        type: 'recovery',
        model,
        action: result.action,
        steps: result.steps,
        ...(result.message === undefined ? {} : { message: result.message }),
      });
      if (!result.request || result.action === 'give_up') throw result.error ?? error;
      return await retry(result.request);
    }
  }

  #managerFor(model: string, provider: string | undefined): Promise<ContextWindowManager> {
    const given = this.#options.manager;
    if (given) return Promise.resolve(given);
    const key = `${provider ?? ''}\u0000${model}`;
    let manager = this.#managers.get(key);
    if (!manager) {
      manager = this.#createManager(model, provider);
      // A failed lookup is not kept: the next call tries again.
      manager.catch(() => this.#managers.delete(key));
      this.#managers.set(key, manager);
    }
    return manager;
  }

  async #createManager(model: string, provider: string | undefined): Promise<ContextWindowManager> {
    const { contextLength, outputCap, reserve, safetyRatio, clamp, counter } = this.#options;
    const limits =
      model === ''
        ? { contextLength, outputCap }
        : await resolveLimits({ model, provider, config: { contextLength, outputCap } });
    return new ContextWindowManager({
      ...(model === '' ? {} : { model }),
      contextLength: limits.contextLength,
      outputCap: limits.outputCap,
      reserve,
      safetyRatio,
      clamp,
      counter,
    });
  }

  /** Runs a manager call with its events forwarded, tagged with the model. */
  #withEvents<T>(manager: ContextWindowManager, model: string, run: () => T): T {
    if (!this.#options.onEvent) return run();
    const unsubscribe = manager.subscribe((event: ManagerEvent) => this.#emit({ ...event, model }));
    let async = false;
    try {
      const result = run();
      if (result instanceof Promise) {
        async = true;
        return result.finally(unsubscribe) as T;
      }
      return result;
    } finally {
      if (!async) unsubscribe();
    }
  }

  #emit(event: AdapterEvent): void {
    this.#options.onEvent?.(event);
  }
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const record = error as { status?: unknown; statusCode?: unknown };
  const status = record.status ?? record.statusCode;
  return typeof status === 'number' ? status : undefined;
}

import type { WindowCheck } from '../budget/index.js';
import type { CompactionResult } from '../compact/index.js';
import { parseCompressionState } from '../compress/index.js';
import { createCalibration, parseCalibration, restartCalibration } from '../tokens/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import type { ManagerEvent } from './events.js';
import { fitRequest, forgetRun } from './fit-request.js';
import type { FitResult } from './fit-result.js';
import { createManagerCore, type ManagerCore } from './manager-core.js';
import type { ManagerNotice } from './manager-notice.js';
import {
  type ContextWindowManagerOptions,
  checkManagerOptions,
  type ManagerCompactOptions,
  type RequestMeasure,
} from './manager-options.js';
import type { ManagerState, UsageReport } from './manager-state.js';
import { confirmTruncation, observeUsage } from './observe-usage.js';
import {
  calibrateFromCount,
  compactHistory,
  describeFitted,
  elideAll,
  measureRequest,
  noteCount,
} from './request-measures.js';
import { parseStickyCut } from './sticky-cut.js';

export type { ContextWindowManagerOptions, FitResult };

/**
 * Bounds every provider send of one run: normalize, budget, count, cut only what does not fit,
 * clamp `max_tokens`, re-check pairing. Between sends it learns from the usage the provider reports
 * ({@link observe}) and from overflow errors ({@link learnWindow}).
 *
 * One manager serves one run at a time; a send whose head (system prompt and first user message)
 * differs from the previous one starts a new run and resets calibration, so one shared instance never
 * carries one run's calibration into the next.
 *
 * Its parts, each a file of `core/manager`: the state they share (`manager-core.ts`), the fit
 * (`fit-request.ts`, its plan in `fit-pipeline.ts` and last steps in `finish-fit.ts`), what it learns
 * from usage (`observe-usage.ts`), what recovery asks of it (`request-measures.ts`), the requests it
 * remembers (`counted-requests.ts`), the limits it learned (`learned-limits.ts`) and which counters
 * it trusts (`counter-trust.ts`).
 *
 * @example
 * const manager = new ContextWindowManager({ contextLength: 128_000, model: 'gpt-4o' });
 * const { request } = manager.fit(fromOpenAIChat(body));
 * const response = await client.chat.completions.create(toOpenAIChat(request));
 * manager.observe({ promptTokens: response.usage.prompt_tokens });
 */
export class ContextWindowManager {
  readonly #core: ManagerCore;
  readonly #listeners = new Set<(event: ManagerEvent) => void>();

  constructor(options: ContextWindowManagerOptions = {}) {
    checkManagerOptions(options);
    this.#core = createManagerCore(options, (event) => {
      options.onEvent?.(event);
      for (const listener of this.#listeners) listener(event);
    });
  }

  /** Calibration, learned limits, sticky cut state and the anchor, for suspend / resume. */
  get state(): ManagerState {
    const core = this.#core;
    // Assigned, not spread: the parts are objects made at run time, and spreading them into a
    // literal takes V8's slow path (a proxy saves a state per request).
    const state: ManagerState = Object.assign(
      { calibration: core.calibration },
      core.limits.state,
      { compression: core.compression },
      core.requests.state,
    );
    if (core.cut) state.cut = core.cut;
    return state;
  }

  /** Restores state saved from {@link state}; a malformed part is dropped. */
  restore(state: ManagerState): void {
    const core = this.#core;
    core.calibration = parseCalibration(state.calibration) ?? createCalibration();
    core.limits.restore(state);
    core.compression = parseCompressionState(state.compression);
    core.requests.restore(state);
    core.cut = parseStickyCut(state.cut);
  }

  /**
   * Whether estimates come from Spillway's estimator, which errs high, rather than a caller's exact
   * counter: recovery then knows a request estimated a little over the budget may still fit.
   */
  get estimatesErrHigh(): boolean {
    return this.#core.options.counter === undefined;
  }

  /** The model the manager was configured with (requests may name their own). */
  get model(): string | undefined {
    return this.#core.options.model;
  }

  /**
   * Forgets the run: calibration back to the start, no anchor, no cut. Learned windows and what the
   * reports showed of the tokenizer stay.
   */
  reset(): void {
    this.#core.calibration = restartCalibration(this.#core.calibration);
    forgetRun(this.#core);
    this.#core.requests.reset();
  }

  /** Adds an observer of every event besides `options.onEvent`; returns the function that removes it. */
  subscribe(listener: (event: ManagerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Records a window a provider's overflow error stated for `model`. */
  learnWindow(model: string, window: number): void {
    this.#core.limits.learnWindow(model, window);
  }

  /** The window in force for a model: learned from the provider, else configured, else the fallback. */
  windowFor(model: string | undefined): number | undefined {
    return this.#core.limits.windowFor(model);
  }

  /** Records that the provider serving `model` checks the prompt alone against the window. */
  learnWindowCheck(model: string, check: WindowCheck): void {
    this.#core.limits.learnWindowCheck(model, check);
  }

  /** What the provider checks against the window for a model: learned, else configured. */
  windowCheckFor(model: string | undefined): WindowCheck | undefined {
    return this.#core.limits.windowCheckFor(model);
  }

  /** Records an output cap an `output_cap` overflow stated for `model`; caps are only ever lowered. */
  learnOutputCap(model: string, cap: number): void {
    this.#core.limits.learnOutputCap(model, cap);
  }

  /** The output cap in force for a model: the smaller of the configured and the learned one. */
  outputCapFor(model: string | undefined): number | undefined {
    return this.#core.limits.outputCapFor(model);
  }

  /**
   * Fits a request to the window. A request that fits goes out as it came; one that does not is cut
   * (the run's earlier cut first; then old tool results elided or old turns dropped, deep enough for
   * several turns; an oversized newest turn's tool results shortened). Throws
   * `ContextTruncatedError` only when a measured count proves that not even the head and the newest
   * turn's own text fit; when only the estimate says so, the request goes out with
   * `verdict: 'uncertain'` for the provider to judge. Throws `invalid_transcript` when the input's
   * tool calls and results do not pair up.
   */
  fit(request: ChatRequest): FitResult {
    return fitRequest(this.#core, request);
  }

  /**
   * Feeds back the prompt tokens the provider reported for the last fitted request: the calibration
   * moves toward `reported / raw estimate`, and the count anchors the next estimate. A report below
   * what trusted evidence says the request takes is a silent truncation: the window is learned from
   * it, the count anchors nothing, and the notice is returned (and sent as a `notice` event). The
   * model's tokenizer is compared with the report until it is verified or demoted.
   */
  observe(usage: UsageReport): ManagerNotice | undefined {
    return observeUsage(this.#core, usage);
  }

  /**
   * Settles a suspected truncation with a count of the last request (a server's counting endpoint):
   * a report below the count is a truncation, learned as one; otherwise nothing changes. Returns the
   * truncation notice when there was one.
   */
  confirmTruncation(options: {
    /** The count of the last fitted request. */
    promptTokens: number;
    /** The prompt tokens the provider reported for it. */
    reported: number;
  }): ManagerNotice | undefined {
    return confirmTruncation(this.#core, options);
  }

  /**
   * The estimate of a request as `fit` would compare it to the budget, without fitting it: the stored
   * compression levels applied, nothing new cut, no provider-count anchor. Recovery uses it to check
   * candidates.
   */
  measure(request: ChatRequest): RequestMeasure {
    return measureRequest(this.#core, request);
  }

  /**
   * What `fit` reports, for a request fitted elsewhere (recovery's retry, a passthrough send):
   * measured as `fit` would and recorded as the request the next {@link observe} is about. `original`
   * is the caller's history, for the turns the request no longer holds.
   */
  describeFitted(request: ChatRequest, original: readonly Message[]): FitResult {
    return describeFitted(this.#core, request, original);
  }

  /**
   * Stubs every tool result outside the newest run, whatever the size: the recovery chain's forced
   * prune. Sticky like every level; returns the tool-call ids it elided.
   */
  compress({ request }: { request: ChatRequest }): { escalated: string[] } {
    return elideAll(this.#core, request);
  }

  /**
   * Compacts a history now (a manual `/compact`, or a recovery step): `compactTranscript` with this
   * manager's window, budget, calibrated estimate and recall ids. A window a summary request's
   * overflow stated is learned; a successful compaction continues the run (its calibration stays).
   * Write `result.removed` to the store (`applyCompaction`) and continue with `result.messages`.
   *
   * @example
   * const result = await manager.compact({ messages: history, summarize, tools });
   * if (result.ok) history = result.messages;
   */
  compact(options: ManagerCompactOptions): Promise<CompactionResult> {
    return compactHistory(this.#core, options, (messages) => this.rebase({ messages }));
  }

  /**
   * Raises the calibration from a prompt count a provider stated for a request it rejected (an
   * overflow's input figure), when Spillway counted fewer. Only ever raises the factor, and never
   * anchors on the count: a rejected request's count may be a lower bound (vLLM truncates before
   * counting).
   */
  calibrateFromCount(options: { request: ChatRequest; promptTokens: number }): void {
    calibrateFromCount(this.#core, options);
  }

  /**
   * Records an exact count of a request that was not sent (a server's counting endpoint): the next
   * fit of it, or of its extension, counts from this figure as from a provider's report.
   */
  noteCount(options: { request: ChatRequest; promptTokens: number }): void {
    noteCount(this.#core, options);
  }

  /** Whether the caller offers the `recall` tool (the `recall` option): markers then name it. */
  get offersRecall(): boolean {
    return this.#core.options.recall === true;
  }

  /** Takes the next recall id, for a placeholder made outside the manager (a hard truncation marker). */
  nextRecallId(): number {
    const core = this.#core;
    const id = core.compression.nextRecallId;
    core.compression = { ...core.compression, nextRecallId: id + 1 };
    return id;
  }

  /**
   * Tells the manager that `messages` replace the run's history (after a compaction or a truncation
   * that may have changed the head): the run continues with its calibration and learned limits; the
   * provider-count anchor and the cut are dropped, since the prefix they describe is gone.
   */
  rebase({ messages }: { messages: readonly Message[] }): void {
    this.#core.requests.rebase(messages);
    this.#core.cut = undefined;
  }
}

import {
  detectSilentTruncation,
  silentTruncationNotice,
  suspectedTruncationNotice,
} from '../budget/detect-silent-truncation.js';
import {
  type Budget,
  type ClampMode,
  clampOutputTokens,
  computeBudget,
  type LearnedWindows,
  learnWindow,
  type WindowCheck,
} from '../budget/index.js';
import { type CompactionResult, compactTranscript } from '../compact/index.js';
import {
  applyCompression,
  type CompressionState,
  createCompressionState,
  elideToolResults,
  parseCompressionState,
  type RenderMemo,
} from '../compress/index.js';
import { nextAppendRate } from '../cut/index.js';
import { ContextTruncatedError, SpillwayError } from '../errors/index.js';
import { SchemaFloorTracker } from '../schemas/index.js';
import {
  applyCalibration,
  type Calibration,
  calibratedLowerBound,
  calibrationInputOf,
  checkTokenizer,
  createCalibration,
  createEstimator,
  createTokenizerCheck,
  EstimateCache,
  observeCalibration,
  parseCalibration,
  REQUEST_OVERHEAD,
  raiseCalibration,
  restartCalibration,
  scalarFactor,
  type TokenCounter,
  type TokenizerCheck,
  tokenizerDemotedNotice,
  tokenizerFamilyOf,
  tokenizerSpread,
  withTokenizerCheck,
} from '../tokens/index.js';
import {
  assertPairing,
  type ChatRequest,
  digestItems,
  type Message,
  requireChatRequest,
  requireObject,
  splitTurns,
  type UserMessage,
  validatePairing,
} from '../transcript/index.js';
import type { ManagerEvent, ManagerNotice } from './events.js';
import { type FitContext, type FitPlan, planFit } from './fit-pipeline.js';
import type { CutReport, FitResult } from './fit-result.js';
import type { ManagerCompactOptions, RequestMeasure } from './manager-options.js';
import { type ManagerState, type PersistedAnchor, parseAnchor, type UsageReport } from './manager-state.js';
import { recallSpans } from './placeholders.js';
import {
  type Anchor,
  budgetFor,
  isMeasured,
  type RequestCount,
  type TrustedCounter,
} from './request-count.js';
import {
  anchorOnPersisted,
  anchorOnSent,
  contentKey,
  persistAnchor,
  type SentRequest,
  sameItems,
  sentRequest,
} from './sent-request.js';
import { parseStickyCut, type StickyCut } from './sticky-cut.js';
import { requestParts, truncatedMessage } from './truncated-message.js';

/** Options of a {@link ContextWindowManager}. */
export interface ContextWindowManagerOptions {
  /** The model's context window. Unknown: the conservative 8,192 fallback. */
  contextLength?: number;
  /** The model's reply cap. */
  outputCap?: number;
  /**
   * What the provider checks against the window (default `prompt+reply`); `prompt` (llama.cpp)
   * reserves only what a reply needs. Learned from an overflow whose sender is known to check the
   * prompt alone.
   */
  windowCheck?: WindowCheck;
  /** The model id, for the tokenizer family and learned windows. Requests may carry their own. */
  model?: string;
  /** Estimate with this instead of Spillway's estimator (it should not count fewer than the model). */
  counter?: TokenCounter;
  /**
   * A counter you know counts as the provider does (your own server's tokenizer): trusted from the
   * first send, it counts a request when the estimate alone cannot tell whether it fits.
   */
  exact?: TokenCounter;
  /**
   * The model's tokenizer as its id suggests (`exactCounterFor` in `spillway/tokenizers`): a guess
   * until its counts of the first requests agree with the prompt tokens the provider reports
   * (within 5%, or 64 tokens); then it counts as `exact` does. One that disagrees is never used
   * again for this model (the check is kept in the calibration state) and a `notice` says so.
   */
  tokenizer?: TokenCounter;
  /** A fixed reply reserve, instead of `max_tokens` / the output cap / 2% of the window. */
  reserve?: number;
  /** Share of the window kept free for estimation error (default 0.03). */
  safetyRatio?: number;
  /** When to set or lower `max_tokens` (default `auto`: fill it in when the request has none). */
  clamp?: ClampMode;
  /** Receives `fit`, `cut`, `calibrate` and `notice` events. */
  onEvent?: (event: ManagerEvent) => void;
  /**
   * Whether {@link ContextWindowManager.observe} checks usage for a silent truncation (a server that
   * cut the prompt to its window and answered 200, as Ollama does) and learns the window (default true).
   */
  detectSilentTruncation?: boolean;
  /** Whether a cut may elide old tool results (default true); otherwise only whole turns are dropped. */
  compress?: boolean;
  /** Whether the caller offers the `recall` tool: markers then say how to get what they stand for. */
  recall?: boolean;
  /**
   * Turns a new cut leaves room for at the conversation's recent append rate (default 5,
   * `CUT_RUNWAY_TURNS`). More means rarer cuts and a provider cache that stays warm longer; fewer
   * means each request keeps more of the history; 0 cuts only what does not fit.
   */
  cutRunway?: number;
}

export type { FitResult };

/**
 * Bounds every provider send of one run: normalize, budget, count, cut only what does not fit,
 * clamp `max_tokens`, re-check pairing. Between sends it learns from the usage the provider reports
 * ({@link observe}) and from overflow errors ({@link learnWindow}).
 *
 * One manager serves one run at a time; a send whose head (system prompt and first user message)
 * differs from the previous one starts a new run and resets calibration, so one shared instance never
 * carries one run's calibration into the next.
 *
 * @example
 * const manager = new ContextWindowManager({ contextLength: 128_000, model: 'gpt-4o' });
 * const { request } = manager.fit(fromOpenAIChat(body));
 * const response = await client.chat.completions.create(toOpenAIChat(request));
 * manager.observe({ promptTokens: response.usage.prompt_tokens });
 */
export class ContextWindowManager {
  readonly #options: ContextWindowManagerOptions;
  readonly #caches = new Map<string, EstimateCache>();
  readonly #exact: EstimateCache | undefined;
  readonly #tokenizer: EstimateCache | undefined;
  #calibration: Calibration;
  #learned: LearnedWindows = {};
  #head: readonly Message[] | undefined;
  #headKey: string | undefined;
  #last: SentRequest | undefined;
  /** Where the run's last cut left the history; later sends keep it until the budget moves it. */
  #cut: StickyCut | undefined;
  /** The last request the provider counted: an anchor that survives a failed send of its extension. */
  #observed: SentRequest | undefined;
  /**
   * The last counted request per tool set: a send without tools (a synthesis) between two with
   * them leaves the next one its anchor.
   */
  readonly #countedByTools = new Map<string, SentRequest>();
  #compression: CompressionState = createCompressionState();
  #learnedCaps: Readonly<Record<string, number>> = {};
  #learnedChecks: Readonly<Record<string, WindowCheck>> = {};
  #appendRate: number | undefined;
  readonly #renders: RenderMemo = new WeakMap();
  /** An anchor from a restored state, used until a send of this manager's own is counted. */
  #restoredAnchor: PersistedAnchor | undefined;
  readonly #markers = new Map<string, UserMessage>();
  readonly #schemaFloor = new SchemaFloorTracker();
  readonly #listeners = new Set<(event: ManagerEvent) => void>();

  constructor(options: ContextWindowManagerOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new SpillwayError(
        'invalid_config',
        'ContextWindowManager takes an options object, such as { contextLength: 128000 }',
      );
    for (const key of ['contextLength', 'outputCap', 'reserve'] as const) {
      const value = options[key];
      if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
        throw new SpillwayError('invalid_config', `${key} must be a positive integer, got ${value}`);
      }
    }
    if (options.safetyRatio !== undefined && !(options.safetyRatio >= 0 && options.safetyRatio < 0.5)) {
      throw new SpillwayError(
        'invalid_config',
        `safetyRatio must be in [0, 0.5), got ${options.safetyRatio}`,
      );
    }
    if (options.cutRunway !== undefined && !(options.cutRunway >= 0 && options.cutRunway <= 100)) {
      throw new SpillwayError(
        'invalid_config',
        `cutRunway must be a number of turns in [0, 100], got ${options.cutRunway}`,
      );
    }
    this.#options = options;
    this.#calibration = createCalibration();
    this.#exact = options.exact ? new EstimateCache(options.exact) : undefined;
    this.#tokenizer = options.tokenizer ? new EstimateCache(options.tokenizer) : undefined;
  }

  /** Calibration, learned limits, sticky cut state and the anchor, for suspend / resume. */
  get state(): ManagerState {
    const counted = this.#last?.anchor !== undefined ? this.#last : this.#observed;
    const anchor = (counted ? persistAnchor(counted) : undefined) ?? this.#restoredAnchor;
    return {
      calibration: this.#calibration,
      learnedWindows: this.#learned,
      compression: this.#compression,
      learnedOutputCaps: this.#learnedCaps,
      ...(Object.keys(this.#learnedChecks).length > 0 ? { learnedWindowChecks: this.#learnedChecks } : {}),
      ...(anchor ? { anchor } : {}),
      ...(this.#cut ? { cut: this.#cut } : {}),
      ...(this.#appendRate === undefined ? {} : { appendRate: this.#appendRate }),
    };
  }

  /** Restores state saved from {@link state}; a malformed part is dropped. */
  restore(state: ManagerState): void {
    this.#calibration = parseCalibration(state.calibration) ?? createCalibration();
    this.#learned = { ...state.learnedWindows };
    this.#compression = parseCompressionState(state.compression);
    this.#learnedCaps = { ...state.learnedOutputCaps };
    this.#learnedChecks = parseWindowChecks(state.learnedWindowChecks);
    this.#restoredAnchor = parseAnchor(state.anchor);
    this.#cut = parseStickyCut(state.cut);
    this.#appendRate =
      typeof state.appendRate === 'number' && state.appendRate >= 0 ? state.appendRate : undefined;
  }

  /**
   * Whether estimates come from Spillway's estimator, which errs high, rather than a caller's exact
   * counter: recovery then knows a request estimated a little over the budget may still fit.
   */
  get estimatesErrHigh(): boolean {
    return this.#options.counter === undefined;
  }

  /** The model the manager was configured with (requests may name their own). */
  get model(): string | undefined {
    return this.#options.model;
  }

  /**
   * Forgets the run: calibration back to the start, no anchor, no cut. Learned windows and what the
   * reports showed of the tokenizer stay.
   */
  reset(): void {
    this.#calibration = restartCalibration(this.#calibration);
    this.#forgetRun();
    this.#head = undefined;
    this.#headKey = undefined;
  }

  #forgetRun(): void {
    this.#last = undefined;
    this.#observed = undefined;
    this.#countedByTools.clear();
    this.#cut = undefined;
    this.#restoredAnchor = undefined;
    this.#appendRate = undefined;
    this.#schemaFloor.resetNotices();
  }

  /** Adds an observer of every event besides `options.onEvent`; returns the function that removes it. */
  subscribe(listener: (event: ManagerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: ManagerEvent): void {
    this.#options.onEvent?.(event);
    for (const listener of this.#listeners) listener(event);
  }

  /** Records a window a provider's overflow error stated for `model`. */
  learnWindow(model: string, window: number): void {
    this.#learned = learnWindow(this.#learned, model, window);
  }

  /** The window in force for a model: learned from the provider, else configured, else the fallback. */
  windowFor(model: string | undefined): number | undefined {
    const learned = model === undefined ? undefined : this.#learned[model];
    return learned ?? this.#options.contextLength;
  }

  /** Records that the provider serving `model` checks the prompt alone against the window. */
  learnWindowCheck(model: string, check: WindowCheck): void {
    if (this.#learnedChecks[model] !== check)
      this.#learnedChecks = { ...this.#learnedChecks, [model]: check };
  }

  /** What the provider checks against the window for a model: learned, else configured. */
  windowCheckFor(model: string | undefined): WindowCheck | undefined {
    const learned = model === undefined ? undefined : this.#learnedChecks[model];
    return learned ?? this.#options.windowCheck;
  }

  /** Records an output cap an `output_cap` overflow stated for `model`; caps are only ever lowered. */
  learnOutputCap(model: string, cap: number): void {
    if (!Number.isInteger(cap) || cap <= 0) return;
    const current = this.#learnedCaps[model];
    if (current === undefined || cap < current) this.#learnedCaps = { ...this.#learnedCaps, [model]: cap };
  }

  /** The output cap in force for a model: the smaller of the configured and the learned one. */
  outputCapFor(model: string | undefined): number | undefined {
    const learned = model === undefined ? undefined : this.#learnedCaps[model];
    const configured = this.#options.outputCap;
    if (learned === undefined) return configured;
    return configured === undefined ? learned : Math.min(configured, learned);
  }

  /**
   * Fits a request to the window. A request that fits goes out as it came; one that does not is cut
   * (the run's earlier cut first; then old tool results elided or old turns dropped, deep enough for
   * several turns; an oversized newest turn's tool results shortened). Throws
   * {@link ContextTruncatedError} only when a measured count proves that not even the head and the
   * newest turn's own text fit; when only the estimate says so, the request goes out with
   * `verdict: 'uncertain'` for the provider to judge. Throws `invalid_transcript` when the input's
   * tool calls and results do not pair up.
   */
  fit(request: ChatRequest): FitResult {
    requireChatRequest(request, 'fit');
    assertPairing(request.messages);
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    this.#detectNewRun(request.messages);
    const limits = this.#budget(model, request.maxTokens);
    const notices = this.#schemaNotice(request, cache, limits);
    const context = this.#fitContext(request, cache, limits);
    const outcome = planFit(context);
    if (outcome.kind === 'over') this.#nothingFits(request, cache, limits, outcome.messages, outcome.count);
    const plan = (outcome as { plan: FitPlan }).plan;
    this.#compression = plan.compression;
    this.#cut = plan.stickyCut;
    if (plan.cut.kind !== 'none' && plan.cut.kind !== 'sticky') this.#emitCut(plan.cut, context, plan);
    return this.#finish({ request, model, cache, limits, plan, notices });
  }

  #fitContext(request: ChatRequest, cache: EstimateCache, limits: Budget): FitContext {
    return {
      request,
      budget: limits.budget,
      counted: limits.counted,
      fixedRaw: cache.tools(request.tools).total + REQUEST_OVERHEAD,
      cache,
      ...this.#trustedCounter(),
      calibration: this.#calibration,
      anchorFor: (candidate, counter) => this.#anchorFor(candidate, counter ?? cache),
      compression: this.#compression,
      cut: this.#cut,
      memo: this.#renders,
      markers: this.#markers,
      markerOptions: { recall: this.#options.recall === true },
      appendRate: this.#appendRate,
      runway: this.#options.cutRunway,
      elide: this.#options.compress !== false,
    };
  }

  #schemaNotice(request: ChatRequest, cache: EstimateCache, limits: Budget): ManagerNotice[] {
    const schema = this.#schemaFloor.check({
      tools: request.tools,
      messages: request.messages,
      counter: cache.counter,
      messageEstimate: (message) => cache.message(message).total,
      budget: limits.budget,
      window: limits.window,
    });
    if (!schema.notice) return [];
    const notice = schema.notice;
    this.#emit({ type: 'notice', level: notice.level, message: notice.message, notice });
    return [notice];
  }

  #nothingFits(
    request: ChatRequest,
    cache: EstimateCache,
    limits: Budget,
    messages: readonly Message[],
    count: RequestCount,
  ): never {
    const schemaTokens = applyCalibration(this.#calibration, cache.tools(request.tools).total);
    const details = {
      estimate: count.tokens,
      budget: budgetFor(count, limits),
      window: limits.window,
      reserve: limits.reserve,
      schemaTokens,
    };
    const sources = this.#schemaFloor.check({
      tools: request.tools,
      messages: request.messages,
      counter: cache.counter,
      messageEstimate: (message) => cache.message(message).total,
      budget: limits.budget,
      window: limits.window,
    }).floor.sources;
    // The parts in the units of the count that judged the request, so they add up to it.
    const factor = count.raw > 0 ? count.tokens / count.raw : scalarFactor(this.#calibration);
    const parts = requestParts({
      messages,
      headEnd: splitTurns(messages).head.end,
      schemas: Math.round((cache.tools(request.tools).total + REQUEST_OVERHEAD) * factor),
      tokensOf: (message) => Math.round(cache.message(message).total * factor),
    });
    throw new ContextTruncatedError(
      truncatedMessage({ ...details, messages: messages.length, parts, sources }),
      details,
    );
  }

  #emitCut(cut: CutReport, context: FitContext, plan: FitPlan): void {
    this.#emit({
      type: 'cut',
      kind: cut.kind as Exclude<CutReport['kind'], 'none' | 'sticky'>,
      freed: cut.freed,
      droppedTurns: cut.droppedTurns,
      elided: cut.elided,
      shortened: cut.shortened,
      after: plan.count.tokens,
      budget: budgetFor(plan.count, context),
    });
  }

  /** The plan made a request: `max_tokens` clamped, pairing re-checked, recorded as sent. */
  #finish({
    request,
    model,
    cache,
    limits,
    plan,
    notices,
  }: {
    request: ChatRequest;
    model: string | undefined;
    cache: EstimateCache;
    limits: Budget;
    plan: FitPlan;
    notices: ManagerNotice[];
  }): FitResult {
    // The input's pairing was asserted on the way in: only a cut can break it.
    const pairing =
      plan.messages === request.messages ? { ok: true as const } : validatePairing(plan.messages);
    if (!pairing.ok)
      throw new SpillwayError(
        'internal',
        `fitting produced an invalid transcript (${pairing.issues[0]?.message}); please report this`,
        { data: { issues: pairing.issues } },
      );
    // The clamp keeps its full margin even on a measured count: an anchored count still estimates
    // what was appended, and real clients' requests (opencode against vLLM) were rejected for
    // prompt + max_tokens when the margin was the budget's 256 tokens. A request only the estimate
    // doubts asks for the room its prompt leaves at the middle of what it can count: reserving as if
    // the estimate's high end were true would cut short replies that fit, and where the prompt does
    // count more the provider says by how much (recovery lowers max_tokens from that figure).
    const promptEstimate =
      plan.verdict === 'uncertain' && !isMeasured(plan.count)
        ? Math.ceil((plan.count.low + plan.count.tokens) / 2)
        : plan.count.tokens;
    const maxTokens = clampOutputTokens({
      window: limits.window,
      promptEstimate,
      outputCap: this.outputCapFor(model),
      requested: request.maxTokens,
      mode: this.#options.clamp,
      required: request.format === 'anthropic',
    });
    const fitted: ChatRequest = { ...request, messages: plan.messages };
    if (maxTokens === undefined) delete fitted.maxTokens;
    else fitted.maxTokens = maxTokens;
    const breakdown = cache.request(fitted);
    this.#noteAppended(plan);
    this.#last = sentRequest(fitted, {
      breakdown,
      model,
      cache,
      ...(this.#observed ? { previous: this.#observed } : {}),
      ...(this.#restoredAnchor ? { persisted: this.#restoredAnchor } : {}),
    });
    const droppedTurns = plan.cut.droppedTurns;
    const result: FitResult = {
      request: fitted,
      estimate: plan.count.tokens,
      countSource: plan.count.source,
      verdict: plan.verdict,
      budget: budgetFor(plan.count, limits),
      window: limits.window,
      reserve: limits.reserve,
      schemaTokens: applyCalibration(this.#calibration, cache.tools(request.tools).total),
      cut: plan.cut,
      pruned: droppedTurns > 0,
      droppedTurns,
      breakdown,
      anchored: plan.count.source === 'anchored',
      notices,
      compressed: plan.cut.elided,
      recall: recallSpans({
        messages: request.messages,
        kept: (index) => plan.pruned === undefined || index < plan.pruned.start || index >= plan.pruned.end,
        state: this.#compression,
        ...(plan.pruned ? { pruned: plan.pruned } : {}),
      }),
    };
    this.#emit({
      type: 'fit',
      estimate: result.estimate,
      budget: result.budget,
      window: result.window,
      pruned: result.pruned,
      droppedTurns,
      anchored: result.anchored,
      countSource: result.countSource,
      verdict: result.verdict,
      cut: plan.cut.kind,
    });
    return result;
  }

  /** The append rate follows what anchored sends add to the counted prefix. */
  #noteAppended(plan: FitPlan): void {
    if (plan.count.source !== 'anchored') return;
    const counted =
      (this.#last?.anchor !== undefined ? this.#last : this.#observed)?.anchor ??
      this.#restoredAnchor?.reported;
    if (counted === undefined) return;
    this.#appendRate = nextAppendRate(this.#appendRate, Math.max(0, plan.count.tokens - counted));
  }

  /**
   * Feeds back the prompt tokens the provider reported for the last fitted request: the calibration
   * moves toward `reported / raw estimate`, and the count anchors the next estimate. A report below
   * the fewest tokens the request could take is a silent truncation: the window is learned from it,
   * the count anchors nothing, and the notice is returned (and sent as a `notice` event).
   */
  observe(usage: UsageReport): ManagerNotice | undefined {
    requireObject(usage, 'observe', 'the usage the provider reported: { promptTokens: usage.prompt_tokens }');
    const last = this.#last;
    if (!last || !(usage.promptTokens > 0)) return undefined;
    const truncation = this.#detectTruncation(last, usage.promptTokens);
    if (truncation?.code === 'silent_truncation') return truncation;
    const demoted = this.#checkTokenizer(last, usage.promptTokens);
    this.#schemaFloor.observe({ reported: usage.promptTokens, raw: last.raw, hasImages: last.hasImages });
    const before = scalarFactor(this.#calibration);
    this.#calibration = observeCalibration(this.#calibration, {
      reported: usage.promptTokens,
      raw: last.split,
    });
    last.anchor = usage.promptTokens;
    this.#observed = last;
    this.#rememberCounted(last);
    if (scalarFactor(this.#calibration) !== before)
      this.#emit({
        type: 'calibrate',
        factor: scalarFactor(this.#calibration),
        reported: usage.promptTokens,
        raw: last.raw,
      });
    return truncation ?? demoted;
  }

  /**
   * Settles a suspected truncation with a count of the last request (a server's counting endpoint):
   * a report below the count is a truncation, learned as one; otherwise nothing changes. Returns the
   * truncation notice when there was one.
   */
  confirmTruncation({
    promptTokens,
    reported,
  }: {
    /** The count of the last fitted request. */
    promptTokens: number;
    /** The prompt tokens the provider reported for it. */
    reported: number;
  }): ManagerNotice | undefined {
    const last = this.#last;
    if (!last || !(promptTokens > 0) || !(reported > 0)) return undefined;
    return this.#detectTruncation(last, reported, { tokens: promptTokens, spread: 0, verified: true });
  }

  /**
   * A silent truncation in this report: learns the window, drops the anchor, emits the notice. Only
   * trusted evidence (an anchor, a trusted count) makes one; the estimate alone only suspects it.
   */
  #detectTruncation(
    last: SentRequest,
    reported: number,
    counted?: { tokens: number; spread: number; verified: boolean },
  ): ManagerNotice | undefined {
    if (this.#options.detectSilentTruncation === false) return undefined;
    const detect = (count: typeof counted) =>
      detectSilentTruncation({
        reported,
        ...(last.countable ? { raw: last.raw } : {}),
        ...(last.extends ? { anchor: last.extends } : {}),
        ...(count && last.countable ? { counted: count } : {}),
      });
    let check = detect(counted);
    // A local count settles what the estimate suspects; it is taken only then (it costs a tokenizer pass).
    if (check.suspected && counted === undefined) {
      const local = this.#localCount(last);
      if (local) check = detect(local);
    }
    if (check.suspected) {
      const notice = suspectedTruncationNotice({
        check,
        ...(last.model === undefined ? {} : { model: last.model }),
      });
      this.#emit({ type: 'notice', level: notice.level, message: notice.message, notice });
      return notice;
    }
    if (!check.truncated) return undefined;
    const current = this.windowFor(last.model);
    const before = this.#learned;
    if (
      last.model !== undefined &&
      check.window !== undefined &&
      (current === undefined || check.window < current)
    )
      this.learnWindow(last.model, check.window);
    const notice = silentTruncationNotice({ check, model: last.model, learned: this.#learned !== before });
    last.anchor = undefined;
    if (this.#observed === last) this.#observed = undefined;
    this.#emit({ type: 'notice', level: notice.level, message: notice.message, notice });
    return notice;
  }

  /** The last request counted by a local counter, trusted or not, for the truncation check. */
  #localCount(last: SentRequest): { tokens: number; spread: number; verified: boolean } | undefined {
    const trusted = this.#trustedCounter().exact;
    if (trusted)
      return { tokens: trusted.cache.request(asRequest(last)).total, spread: trusted.spread, verified: true };
    if (this.#tokenizer === undefined || this.#tokenizerCheck().status === 'demoted') return undefined;
    return { tokens: this.#tokenizer.request(asRequest(last)).total, spread: 0, verified: false };
  }

  /**
   * Compares the model's tokenizer with the provider's report until it is verified or demoted;
   * returns the notice of a demotion (once: a demoted tokenizer is not compared again).
   */
  #checkTokenizer(last: SentRequest, reported: number): ManagerNotice | undefined {
    const tokenizer = this.#tokenizer;
    if (tokenizer === undefined || this.#exact !== undefined || !last.countable) return undefined;
    const check = this.#tokenizerCheck();
    if (check.status !== 'unverified') return undefined;
    const next = checkTokenizer(check, { counted: tokenizer.request(asRequest(last)).total, reported });
    this.#calibration = withTokenizerCheck(this.#calibration, next);
    if (next.status !== 'demoted') return undefined;
    const notice = tokenizerDemotedNotice({
      check: next,
      tokenizer: tokenizer.counter.name,
      ...(last.model === undefined ? {} : { model: last.model }),
    });
    this.#emit({ type: 'notice', level: notice.level, message: notice.message, notice });
    return notice;
  }

  #tokenizerCheck(): TokenizerCheck {
    return this.#calibration.tokenizer ?? createTokenizerCheck();
  }

  /** The counter trusted to count as the provider does: the caller's, or the verified tokenizer. */
  #trustedCounter(): { exact?: TrustedCounter } {
    if (this.#exact) return { exact: { cache: this.#exact, spread: 0 } };
    const check = this.#tokenizerCheck();
    if (this.#tokenizer && check.status === 'verified')
      return { exact: { cache: this.#tokenizer, spread: tokenizerSpread(check) } };
    return {};
  }

  /**
   * The estimate of a request as `fit` would compare it to the budget, without fitting it: the stored
   * compression levels applied, nothing new cut, no provider-count anchor. Recovery uses it to check
   * candidates.
   */
  measure(request: ChatRequest): RequestMeasure {
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    const { budget, window, reserve } = this.#budget(model, request.maxTokens);
    const breakdown = cache.request({ messages: this.#rendered(request.messages), tools: request.tools });
    return {
      estimate: applyCalibration(this.#calibration, calibrationInputOf(breakdown)),
      low: calibratedLowerBound(this.#calibration, calibrationInputOf(breakdown)),
      budget,
      window,
      reserve,
      schemaTokens: applyCalibration(this.#calibration, cache.tools(request.tools).total),
    };
  }

  #rendered(messages: readonly Message[]): Message[] {
    return applyCompression({ messages, state: this.#compression, memo: this.#renders }) as Message[];
  }

  /**
   * What `fit` reports, for a request fitted elsewhere (recovery's retry, a passthrough send):
   * measured as `fit` would and recorded as the request the next {@link observe} is about. `original`
   * is the caller's history, for the turns the request no longer holds.
   */
  describeFitted(request: ChatRequest, original: readonly Message[]): FitResult {
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    const measure = this.measure(request);
    const breakdown = cache.request(request);
    this.#last = sentRequest(request, { breakdown, model, cache });
    const droppedTurns = Math.max(
      0,
      splitTurns(original).turns.length - splitTurns(request.messages).turns.length,
    );
    return {
      request,
      estimate: measure.estimate,
      countSource: this.#calibration.observations > 0 ? 'calibrated' : 'estimate',
      verdict: 'fits',
      budget: measure.budget,
      window: measure.window,
      reserve: measure.reserve,
      schemaTokens: measure.schemaTokens,
      cut: { kind: droppedTurns > 0 ? 'drop' : 'none', freed: 0, droppedTurns, elided: 0, shortened: 0 },
      pruned: droppedTurns > 0,
      droppedTurns,
      breakdown,
      anchored: false,
      notices: [],
      compressed: 0,
      recall: [],
    };
  }

  /**
   * Stubs every tool result outside the newest run, whatever the size: the recovery chain's forced
   * prune. Sticky like every level; returns the tool-call ids it elided.
   */
  compress({ request }: { request: ChatRequest }): { escalated: string[] } {
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    const before = this.measure(request);
    const result = elideToolResults({
      messages: request.messages,
      state: this.#compression,
      all: true,
      estimateOf: (message) => cache.message(message).total,
      factor: scalarFactor(this.#calibration),
      memo: this.#renders,
      recall: this.#options.recall === true,
    });
    this.#compression = result.state;
    if (result.elided.length > 0)
      this.#emit({
        type: 'cut',
        kind: 'elide',
        freed: Math.max(0, before.estimate - result.estimate),
        droppedTurns: 0,
        elided: result.elided.length,
        shortened: 0,
        after: result.estimate,
        budget: before.budget,
      });
    return { escalated: result.elided };
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
  async compact(options: ManagerCompactOptions): Promise<CompactionResult> {
    const model = options.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    const { budget, window } = this.#budget(model, options.maxTokens);
    const recallId = this.#compression.nextRecallId;
    const result = await compactTranscript({
      messages: options.messages,
      tools: options.tools ?? [],
      ...(model === undefined ? {} : { model }),
      ...(options.format === undefined ? {} : { format: options.format }),
      ...(options.summarize === undefined ? {} : { summarize: options.summarize }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: options.summaryMaxTokens }),
      ...(options.keepTurns === undefined ? {} : { keepTurns: options.keepTurns }),
      window,
      budget,
      recallId,
      estimate: (request) =>
        applyCalibration(
          this.#calibration,
          cache.request({
            messages: this.#rendered(request.messages),
            tools: request.tools as ChatRequest['tools'],
          }).total,
        ),
    });
    if (result.summary !== undefined)
      this.#compression = {
        ...this.#compression,
        nextRecallId: Math.max(this.#compression.nextRecallId, recallId + 1),
      };
    if (result.learnedWindow !== undefined && model !== undefined)
      this.learnWindow(model, result.learnedWindow);
    if (result.ok && result.messages !== undefined) this.rebase({ messages: result.messages });
    return result;
  }

  /**
   * Raises the calibration from a prompt count a provider stated for a request it rejected (an
   * overflow's input figure), when Spillway counted fewer. Only ever raises the factor, and never
   * anchors on the count: a rejected request's count may be a lower bound (vLLM truncates before
   * counting).
   */
  calibrateFromCount({ request, promptTokens }: { request: ChatRequest; promptTokens: number }): void {
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    const breakdown = cache.request({ messages: this.#rendered(request.messages), tools: request.tools });
    const before = scalarFactor(this.#calibration);
    this.#calibration = raiseCalibration(this.#calibration, {
      reported: promptTokens,
      raw: calibrationInputOf(breakdown),
    });
    if (scalarFactor(this.#calibration) !== before)
      this.#emit({
        type: 'calibrate',
        factor: scalarFactor(this.#calibration),
        reported: promptTokens,
        raw: breakdown.total,
      });
  }

  /**
   * Records an exact count of a request that was not sent (a server's counting endpoint): the next
   * fit of it, or of its extension, counts from this figure as from a provider's report.
   */
  noteCount({ request, promptTokens }: { request: ChatRequest; promptTokens: number }): void {
    if (!(promptTokens > 0)) return;
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    const breakdown = cache.request(request);
    this.#observed = { ...sentRequest(request, { breakdown, model, cache }), anchor: promptTokens };
    this.#last = undefined;
  }

  /** Takes the next recall id, for a placeholder made outside the manager (a hard truncation marker). */
  nextRecallId(): number {
    const id = this.#compression.nextRecallId;
    this.#compression = { ...this.#compression, nextRecallId: id + 1 };
    return id;
  }

  /**
   * Tells the manager that `messages` replace the run's history (after a compaction or a truncation
   * that may have changed the head): the run continues with its calibration and learned limits; the
   * provider-count anchor and the cut are dropped, since the prefix they describe is gone.
   */
  rebase({ messages }: { messages: readonly Message[] }): void {
    const { head } = splitTurns(messages);
    const headMessages = messages.slice(head.start, head.end);
    this.#head = headMessages;
    this.#headKey = headMessages.map(contentKey).join('\n');
    this.#last = undefined;
    this.#observed = undefined;
    this.#countedByTools.clear();
    this.#restoredAnchor = undefined;
    this.#cut = undefined;
  }

  #cacheFor(model: string | undefined): EstimateCache {
    const counter = this.#options.counter;
    const key = counter ? `counter:${counter.name}` : `family:${tokenizerFamilyOf(model)}`;
    let cache = this.#caches.get(key);
    if (!cache) {
      cache = new EstimateCache(counter ?? createEstimator({ family: tokenizerFamilyOf(model) }));
      this.#caches.set(key, cache);
    }
    return cache;
  }

  #budget(model: string | undefined, maxTokens: number | undefined): Budget {
    return computeBudget({
      contextLength: this.windowFor(model),
      outputCap: this.outputCapFor(model),
      maxTokens,
      reserve: this.#options.reserve,
      safetyRatio: this.#options.safetyRatio,
      windowCheck: this.windowCheckFor(model),
    });
  }

  /** What the provider counted for the request this one extends, and what was appended since. */
  #anchorFor(request: Pick<ChatRequest, 'messages' | 'tools'>, cache: EstimateCache): Anchor | undefined {
    // A send that failed (no usage came back) leaves the last counted request as the anchor.
    const last = this.#last?.anchor !== undefined ? this.#last : this.#observed;
    if (last === undefined && this.#restoredAnchor)
      return anchorOnPersisted(this.#restoredAnchor, request, cache);
    return (
      anchorOnSent(last, request, cache) ??
      anchorOnSent(this.#countedByTools.get(toolsKey(request.tools)), request, cache)
    );
  }

  #rememberCounted(sent: SentRequest): void {
    const key = toolsKey(sent.tools);
    this.#countedByTools.delete(key);
    this.#countedByTools.set(key, sent);
    // A few tool sets at most (the run's own, none for a synthesis, one after deferred tools load).
    for (const stale of this.#countedByTools.keys()) {
      if (this.#countedByTools.size <= 4) break;
      this.#countedByTools.delete(stale);
    }
  }

  #detectNewRun(messages: readonly Message[]): void {
    const { head } = splitTurns(messages);
    const headMessages = messages.slice(head.start, head.end);
    if (this.#head !== undefined && sameItems(this.#head, headMessages)) return;
    const key = headMessages.map(contentKey).join('\n');
    if (this.#headKey !== undefined && key !== this.#headKey) {
      this.#calibration = restartCalibration(this.#calibration);
      this.#forgetRun();
    }
    this.#head = headMessages;
    this.#headKey = key;
  }
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

/** A sent request's messages and tools, as counters take them. */
function asRequest(sent: SentRequest): Pick<ChatRequest, 'messages' | 'tools'> {
  return { messages: sent.messages as Message[], tools: sent.tools };
}

/** Learned window checks read back from a state; anything but a known check is dropped. */
function parseWindowChecks(value: unknown): Record<string, WindowCheck> {
  const checks: Record<string, WindowCheck> = {};
  if (typeof value !== 'object' || value === null) return checks;
  for (const [model, check] of Object.entries(value))
    if (check === 'prompt' || check === 'prompt+reply') checks[model] = check;
  return checks;
}

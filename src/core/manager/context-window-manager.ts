import {
  detectSilentTruncation,
  hasUncountableContent,
  silentTruncationNotice,
} from '../budget/detect-silent-truncation.js';
import {
  type Budget,
  type ClampMode,
  clampOutputTokens,
  computeBudget,
  type LearnedWindows,
  learnWindow,
} from '../budget/index.js';
import { type CompactionResult, compactTranscript, type RecallSpan } from '../compact/index.js';
import {
  applyCompression,
  type CompressionState,
  compressToolOutputs,
  createCompressionState,
  parseCompressionState,
  type RenderMemo,
} from '../compress/index.js';
import { ContextTruncatedError, SpillwayError } from '../errors/index.js';
import { describeSources, SchemaFloorTracker, type SchemaSource } from '../schemas/index.js';
import {
  applyCalibration,
  type Calibration,
  createCalibration,
  createEstimator,
  EstimateCache,
  observeCalibration,
  parseCalibration,
  REQUEST_OVERHEAD,
  raiseCalibration,
  type TokenBreakdown,
  type TokenCounter,
  tokenizerFamilyOf,
} from '../tokens/index.js';
import {
  assertPairing,
  type ChatRequest,
  digestItems,
  digestMessages,
  type Message,
  splitTurns,
  type UserMessage,
  validatePairing,
} from '../transcript/index.js';
import { compressStep } from './compress-step.js';
import type { ManagerEvent, ManagerNotice } from './events.js';
import type { ManagerCompactOptions, RequestMeasure } from './manager-options.js';
import { markerMessage, recallSpans } from './placeholders.js';
import { keepSummariesWithHead, pruneWithMarker } from './prune-with-marker.js';
import { applyStickyCut, PRUNE_TARGET_RATIO, type StickyCut } from './sticky-cut.js';

/** Options of a {@link ContextWindowManager}. */
export interface ContextWindowManagerOptions {
  /** The model's context window. Unknown: the conservative 8,192 fallback. */
  contextLength?: number;
  /** The model's reply cap. */
  outputCap?: number;
  /** The model id, for the tokenizer family and learned windows. Requests may carry their own. */
  model?: string;
  /** Count with this instead of Spillway's estimator (an exact tokenizer, for instance). */
  counter?: TokenCounter;
  /** A fixed reply reserve, instead of `max_tokens` / the output cap / 2% of the window. */
  reserve?: number;
  /** Share of the window kept free for estimation error (default 0.03). */
  safetyRatio?: number;
  /** When to set or lower `max_tokens` (default `auto`: fill it in when the request has none). */
  clamp?: ClampMode;
  /** Receives `fit`, `prune`, `calibrate` and `notice` events. */
  onEvent?: (event: ManagerEvent) => void;
  /**
   * Whether {@link ContextWindowManager.observe} checks usage for a silent truncation (a server that
   * cut the prompt to its window and answered 200, as Ollama does) and learns the window (default true).
   */
  detectSilentTruncation?: boolean;
  /**
   * Whether `fit` compresses old tool results under pressure (default true): sticky levels, oldest
   * first, the newest tool run always full (see `compressToolOutputs`).
   */
  compress?: boolean;
}

/** A fitted request and what fitting it did. */
export interface FitResult {
  /** The request to send: same format and fields as the input, with turns pruned and `max_tokens` set. */
  request: ChatRequest;
  /** Estimated prompt tokens of the fitted request (messages, tool schemas, overhead), calibrated. */
  estimate: number;
  /** Prompt tokens the window allows: `window - reserve - safety`. */
  budget: number;
  window: number;
  reserve: number;
  /** Estimated tokens of the tool schemas alone. */
  schemaTokens: number;
  /** Whether any turn was dropped. */
  pruned: boolean;
  droppedTurns: number;
  /** Where the estimate came from: the raw breakdown (uncalibrated) of the fitted request. */
  breakdown: TokenBreakdown;
  /** True when the estimate was anchored on the provider's count for the previous request. */
  anchored: boolean;
  /** Notices this fit raised (a tool-schema floor crossing a level), also sent as `notice` events. */
  notices: ManagerNotice[];
  /** Tool results whose compression level went up in this fit. */
  compressed: number;
  /**
   * The spans behind every placeholder in the fitted request (compressed results, pruned turns), for
   * the `recall` tool.
   */
  recall: RecallSpan[];
}

/** What the provider reported about the last request. */
export interface UsageReport {
  /** Every prompt token, cached ones included (Anthropic: input + cache creation + cache read tokens). */
  promptTokens: number;
  completionTokens?: number;
}

/** A manager's state between sends: plain data, so a suspended run can carry it. */
export interface ManagerState {
  calibration: Calibration;
  learnedWindows: LearnedWindows;
  /** Sticky compression levels and recall ids (always present in `manager.state`). */
  compression?: CompressionState;
  /** Output caps learned from `output_cap` overflows, by model (always present in `manager.state`). */
  learnedOutputCaps?: Readonly<Record<string, number>>;
  /**
   * The last request the provider counted, as digests: a manager restored from this state (a
   * proxy's next request of the same conversation) anchors on it as if it had sent it.
   */
  anchor?: PersistedAnchor;
}

/** A provider-counted request, kept as digests of what was sent. */
export interface PersistedAnchor {
  /** How many messages were sent, and the digest of them (`digestMessages`). */
  messages: number;
  digest: string;
  /** The digest of the tool definitions sent. */
  tools: string;
  /** Prompt tokens the provider reported for it. */
  reported: number;
}

interface SentRequest {
  messages: readonly Message[];
  tools: ChatRequest['tools'];
  raw: number;
  anchor?: number;
  model?: string;
  /** Whether every part is text a server must render (no images, documents or reasoning). */
  countable: boolean;
  hasImages: boolean;
  /** Set when this request is the previous one plus an assistant reply and tool results only. */
  extends?: { reported: number; appendedRaw: number };
}

/**
 * Bounds every provider send of one run: normalize, budget, estimate, prune whole turns, clamp
 * `max_tokens`, re-check pairing. Between sends it learns from the usage the provider reports
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
  #calibration: Calibration;
  #learned: LearnedWindows = {};
  #head: readonly Message[] | undefined;
  #headKey: string | undefined;
  #last: SentRequest | undefined;
  /** Where the run's last prune cut the history; later sends keep it until the budget moves it. */
  #cut: StickyCut | undefined;
  /** The last request the provider counted: an anchor that survives a failed send of its extension. */
  #observed: SentRequest | undefined;
  #compression: CompressionState = createCompressionState();
  #learnedCaps: Readonly<Record<string, number>> = {};
  readonly #renders: RenderMemo = new WeakMap();
  /** An anchor from a restored state, used until a send of this manager's own is counted. */
  #restoredAnchor: PersistedAnchor | undefined;
  readonly #markers = new Map<string, UserMessage>();
  readonly #schemaFloor = new SchemaFloorTracker();
  readonly #listeners = new Set<(event: ManagerEvent) => void>();

  constructor(options: ContextWindowManagerOptions = {}) {
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
    this.#options = options;
    this.#calibration = createCalibration();
  }

  /** The calibration, learned windows and output caps, and compression levels, for suspend / resume. */
  get state(): ManagerState {
    const counted = this.#last?.anchor !== undefined ? this.#last : this.#observed;
    const anchor: PersistedAnchor | undefined =
      counted?.anchor !== undefined
        ? {
            messages: counted.messages.length,
            digest: digestMessages(counted.messages),
            tools: digestItems(counted.tools),
            reported: counted.anchor,
          }
        : this.#restoredAnchor;
    return {
      calibration: this.#calibration,
      learnedWindows: this.#learned,
      compression: this.#compression,
      learnedOutputCaps: this.#learnedCaps,
      ...(anchor ? { anchor } : {}),
    };
  }

  /** Restores state saved from {@link state}. A state without compression starts with none. */
  restore(state: ManagerState): void {
    this.#calibration = parseCalibration(state.calibration) ?? createCalibration();
    this.#learned = { ...state.learnedWindows };
    this.#compression = parseCompressionState(state.compression);
    this.#learnedCaps = { ...state.learnedOutputCaps };
    this.#restoredAnchor = parseAnchor(state.anchor);
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

  /** Forgets the run: calibration back to its seed, no anchor. Learned windows stay (they are facts about the server). */
  reset(): void {
    this.#calibration = createCalibration();
    this.#last = undefined;
    this.#observed = undefined;
    this.#head = undefined;
    this.#headKey = undefined;
    this.#cut = undefined;
    this.#restoredAnchor = undefined;
    this.#schemaFloor.resetNotices();
  }

  /**
   * Adds an observer of `fit`, `prune` and `calibrate` events besides `options.onEvent`; returns the
   * function that removes it. The tool loop subscribes for the length of a run.
   */
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

  /** The window in force for a model: learned from an error, else configured, else the fallback. */
  windowFor(model: string | undefined): number | undefined {
    const learned = model === undefined ? undefined : this.#learned[model];
    return learned ?? this.#options.contextLength;
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
   * Fits a request to the window. Throws {@link ContextTruncatedError} when even the head and the
   * newest turn do not fit (no request should be sent), and an `invalid_transcript` error when the
   * input's tool calls and results do not pair up.
   */
  fit(request: ChatRequest): FitResult {
    assertPairing(request.messages);
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    this.#detectNewRun(request.messages);

    const { budget, window, reserve } = this.#budget(model, request.maxTokens);
    const tools = cache.tools(request.tools);
    const schema = this.#schemaFloor.check({
      tools: request.tools,
      messages: request.messages,
      counter: cache.counter,
      messageEstimate: (message) => cache.message(message).total,
      budget,
      window,
    });
    const notices: ManagerNotice[] = [];
    if (schema.notice) {
      notices.push(schema.notice);
      this.#emit({
        type: 'notice',
        level: schema.notice.level,
        message: schema.notice.message,
        notice: schema.notice,
      });
    }
    const fixedRaw = tools.total + REQUEST_OVERHEAD;
    // The run's earlier cut, where it still applies: the same turns left out behind the same marker.
    const baseSegmentation = keepSummariesWithHead(splitTurns(request.messages), request.messages);
    const cut = this.#cut;
    const cutView =
      cut === undefined
        ? undefined
        : applyStickyCut({
            messages: request.messages,
            segmentation: baseSegmentation,
            cut,
            keyOf: contentKey,
            marker: markerMessage(this.#markers, cut.markerText),
          });
    if (cutView === undefined) this.#cut = undefined;
    const working: ChatRequest = cutView === undefined ? request : { ...request, messages: cutView };
    // Step 5: stored compression levels always apply; new ones only under pressure.
    const step = compressStep({
      request: working,
      cache,
      budget,
      fixedRaw,
      calibration: this.#calibration,
      state: this.#compression,
      memo: this.#renders,
      enabled: this.#options.compress !== false,
      anchorFor: (rendered) => this.#anchorFor(rendered, cache),
    });
    this.#compression = step.state;
    if (step.escalated > 0)
      this.#emit({
        type: 'compress',
        escalated: step.escalated,
        before: step.current.estimate,
        after: step.after.estimate,
        budget,
      });
    const compressed = step.after;
    const { anchor, breakdown: full } = compressed;
    const escalated = step.escalated;
    const fullEstimate = compressed.estimate;

    let messages = compressed.messages;
    let droppedTurns = cutView && cut ? cut.turns : 0;
    let estimate = fullEstimate;
    let breakdown = full;
    let pruned: { recallId: number; messages: Message[]; start: number; end: number } | undefined;
    if (cutView && cut) {
      const start = baseSegmentation.head.end;
      pruned = {
        recallId: this.#compression.pruned?.recallId ?? 0,
        messages: request.messages.slice(start, start + cut.messages),
        start,
        end: start + cut.messages,
      };
    }
    if (fullEstimate > budget) {
      const segmentation = splitTurns(messages);
      // With a cut in force, its marker is the first turn after the head and goes with the next cut.
      const offset =
        cutView && cut ? { messages: cut.messages - 1, turns: cut.turns - 1 } : { messages: 0, turns: 0 };
      const pruneTo = (limit: number) =>
        pruneWithMarker({
          messages,
          segmentation,
          cache,
          fixedRaw,
          budget: limit,
          calibration: this.#calibration,
          state: this.#compression,
          markers: this.#markers,
          offset,
        });
      // Move the cut far enough that the next sends fit without moving it again.
      let result = pruneTo(Math.floor(budget * PRUNE_TARGET_RATIO));
      if (
        !result.fits ||
        applyCalibration(this.#calibration, result.estimate) > Math.floor(budget * PRUNE_TARGET_RATIO)
      )
        result = pruneTo(budget);
      this.#compression = result.state;
      estimate = applyCalibration(this.#calibration, result.estimate);
      if (!result.fits || estimate > budget) {
        const schemaTokens = applyCalibration(this.#calibration, tools.total);
        const details = { estimate, budget, window, reserve, schemaTokens };
        throw new ContextTruncatedError(
          truncatedMessage({ ...details, messages: result.messages.length, sources: schema.floor.sources }),
          details,
        );
      }
      if (result.droppedTurns > 0) {
        const start = baseSegmentation.head.end;
        const dropped = result.droppedIndices.length + offset.messages;
        const end = start + dropped;
        if (result.marker)
          pruned = {
            recallId: result.marker.recallId,
            messages: request.messages.slice(start, end),
            start,
            end,
          };
        const firstKept = request.messages[end];
        const markerText = this.#compression.pruned?.text;
        this.#cut =
          result.marker && firstKept && markerText
            ? {
                key: contentKey(firstKept),
                messages: dropped,
                turns: result.droppedTurns + offset.turns,
                markerText,
              }
            : undefined;
      }
      messages = result.messages;
      droppedTurns = result.droppedTurns + offset.turns;
      breakdown = cache.request({ messages, tools: request.tools });
      this.#emit({ type: 'prune', droppedTurns, before: fullEstimate, after: estimate, budget });
    }

    const pairing = validatePairing(messages);
    if (!pairing.ok) {
      throw new SpillwayError(
        'internal',
        `fitting produced an invalid transcript (${pairing.issues[0]?.message}); please report this`,
        { data: { issues: pairing.issues } },
      );
    }

    const maxTokens = clampOutputTokens({
      window,
      promptEstimate: estimate,
      outputCap: this.outputCapFor(model),
      requested: request.maxTokens,
      mode: this.#options.clamp,
    });
    const fitted: ChatRequest = {
      ...request,
      messages: messages === request.messages ? request.messages : messages,
    };
    if (maxTokens === undefined) delete fitted.maxTokens;
    else fitted.maxTokens = maxTokens;

    // A snapshot: callers append to their history array, which must not move the anchor.
    const previous = this.#last;
    const content = hasUncountableContent(fitted.messages);
    const facts = {
      model,
      countable: !content.uncountable,
      hasImages: content.images,
      extends:
        anchor !== undefined && droppedTurns === 0 && previous?.anchor !== undefined
          ? extension(previous.anchor, fitted.messages.slice(previous.messages.length), cache)
          : undefined,
    };
    this.#last = {
      messages: fitted.messages.slice(),
      tools: request.tools.slice(),
      raw: breakdown.total,
      ...facts,
    };
    const result: FitResult = {
      request: fitted,
      estimate,
      budget,
      window,
      reserve,
      schemaTokens: applyCalibration(this.#calibration, tools.total),
      pruned: droppedTurns > 0,
      droppedTurns,
      breakdown,
      anchored: anchor !== undefined && droppedTurns === 0,
      notices,
      compressed: escalated,
      recall: recallSpans({
        messages: request.messages,
        kept: (index) => pruned === undefined || index < pruned.start || index >= pruned.end,
        state: this.#compression,
        ...(pruned ? { pruned } : {}),
      }),
    };
    this.#emit({
      type: 'fit',
      estimate,
      budget,
      window,
      pruned: result.pruned,
      droppedTurns,
      anchored: result.anchored,
    });
    return result;
  }

  /**
   * Feeds back the prompt tokens the provider reported for the last fitted request: calibration grows
   * toward `reported / raw estimate`, and the count anchors the next estimate. A report below the
   * fewest tokens the request could take is a silent truncation: the window is learned from it, the
   * count anchors nothing, and the notice is returned (and sent as a `notice` event).
   */
  observe(usage: UsageReport): ManagerNotice | undefined {
    const last = this.#last;
    if (!last || !(usage.promptTokens > 0)) return undefined;
    const truncation = this.#detectTruncation(last, usage.promptTokens);
    if (truncation) return truncation;
    this.#schemaFloor.observe({ reported: usage.promptTokens, raw: last.raw, hasImages: last.hasImages });
    const before = this.#calibration.factor;
    this.#calibration = observeCalibration(this.#calibration, {
      reported: usage.promptTokens,
      raw: last.raw,
    });
    last.anchor = usage.promptTokens;
    this.#observed = last;
    if (this.#calibration.factor !== before)
      this.#emit({
        type: 'calibrate',
        factor: this.#calibration.factor,
        reported: usage.promptTokens,
        raw: last.raw,
      });
    return undefined;
  }

  /** A silent truncation in this report: learns the window, drops the anchor, emits the notice. */
  #detectTruncation(last: SentRequest, reported: number): ManagerNotice | undefined {
    if (this.#options.detectSilentTruncation === false) return undefined;
    const check = detectSilentTruncation({
      reported,
      ...(last.countable ? { raw: last.raw } : {}),
      ...(last.extends ? { anchor: last.extends } : {}),
    });
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

  /**
   * The estimate of a request as `fit` would compare it to the budget, without fitting it: the stored
   * compression levels applied, nothing new compressed or pruned, no provider-count anchor. Recovery
   * uses it to check candidates.
   */
  measure(request: ChatRequest): RequestMeasure {
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    const { budget, window, reserve } = this.#budget(model, request.maxTokens);
    const messages = applyCompression({
      messages: request.messages,
      state: this.#compression,
      memo: this.#renders,
    });
    const raw = cache.request({ messages: messages as Message[], tools: request.tools }).total;
    return {
      estimate: applyCalibration(this.#calibration, raw),
      budget,
      window,
      reserve,
      schemaTokens: applyCalibration(this.#calibration, cache.tools(request.tools).total),
    };
  }

  /**
   * What `fit` reports, for a request fitted elsewhere (recovery's retry): measured as `fit` would
   * and recorded as the request the next {@link observe} is about. `original` is the caller's
   * history, for the turns the request no longer holds.
   */
  describeFitted(request: ChatRequest, original: readonly Message[]): FitResult {
    const model = request.model ?? this.#options.model;
    const measure = this.measure(request);
    const breakdown = this.#cacheFor(model).request(request);
    const content = hasUncountableContent(request.messages);
    this.#last = {
      messages: request.messages.slice(),
      tools: request.tools.slice(),
      raw: breakdown.total,
      model,
      countable: !content.uncountable,
      hasImages: content.images,
    };
    const droppedTurns = Math.max(
      0,
      splitTurns(original).turns.length - splitTurns(request.messages).turns.length,
    );
    return {
      request,
      estimate: measure.estimate,
      budget: measure.budget,
      window: measure.window,
      reserve: measure.reserve,
      schemaTokens: measure.schemaTokens,
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
   * Stubs every tool result outside the newest run (`level: 'elided'`), whatever the pressure: the
   * recovery chain's forced prune. Sticky like every level; returns the tool-call ids it escalated.
   */
  compress({ request }: { request: ChatRequest; level?: 'elided' }): { escalated: string[] } {
    const model = request.model ?? this.#options.model;
    const cache = this.#cacheFor(model);
    const before = this.measure(request);
    const result = compressToolOutputs({
      messages: request.messages,
      state: this.#compression,
      budget: before.budget,
      estimate: before.estimate,
      estimateOf: (message) => cache.message(message).total,
      factor: this.#calibration.factor,
      count: (text) => cache.counter.count(text),
      force: 'elided',
      memo: this.#renders,
    });
    this.#compression = result.state;
    if (result.escalated.length > 0)
      this.#emit({
        type: 'compress',
        escalated: result.escalated.length,
        before: before.estimate,
        after: this.measure(request).estimate,
        budget: before.budget,
      });
    return { escalated: result.escalated };
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
            messages: applyCompression({
              messages: request.messages,
              state: this.#compression,
              memo: this.#renders,
            }) as Message[],
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
    const messages = applyCompression({
      messages: request.messages,
      state: this.#compression,
      memo: this.#renders,
    });
    const raw = cache.request({ messages: messages as Message[], tools: request.tools }).total;
    const before = this.#calibration.factor;
    this.#calibration = raiseCalibration(this.#calibration, { reported: promptTokens, raw });
    if (this.#calibration.factor !== before)
      this.#emit({ type: 'calibrate', factor: this.#calibration.factor, reported: promptTokens, raw });
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
   * provider-count anchor is dropped, since the prefix it counted is gone.
   */
  rebase({ messages }: { messages: readonly Message[] }): void {
    const { head } = splitTurns(messages);
    const headMessages = messages.slice(head.start, head.end);
    this.#head = headMessages;
    this.#headKey = headMessages.map(contentKey).join('\n');
    this.#last = undefined;
    this.#observed = undefined;
    this.#restoredAnchor = undefined;
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
    });
  }

  /** The anchored estimate: what the provider counted for the previous request plus the appended messages. */
  #anchorFor(request: ChatRequest, cache: EstimateCache): number | undefined {
    // A send that failed (no usage came back) leaves the last counted request as the anchor.
    const last = this.#last?.anchor !== undefined ? this.#last : this.#observed;
    if (last === undefined && this.#restoredAnchor) return this.#restoredAnchorFor(request, cache);
    if (last?.anchor === undefined || !sameItems(last.tools, request.tools)) return undefined;
    const sent = last.messages;
    if (request.messages.length < sent.length) return undefined;
    if (!sameItems(sent, request.messages.slice(0, sent.length))) return undefined;
    const appended = cache.messages(request.messages.slice(sent.length));
    return last.anchor + applyCalibration(this.#calibration, appended.total);
  }

  /** The anchor a restored state carries, when the request starts with the messages it counted. */
  #restoredAnchorFor(request: ChatRequest, cache: EstimateCache): number | undefined {
    const anchor = this.#restoredAnchor as PersistedAnchor;
    if (request.messages.length < anchor.messages) return undefined;
    if (digestItems(request.tools) !== anchor.tools) return undefined;
    if (digestMessages(request.messages.slice(0, anchor.messages)) !== anchor.digest) return undefined;
    const appended = cache.messages(request.messages.slice(anchor.messages));
    return anchor.reported + applyCalibration(this.#calibration, appended.total);
  }

  #detectNewRun(messages: readonly Message[]): void {
    const { head } = splitTurns(messages);
    const headMessages = messages.slice(head.start, head.end);
    if (this.#head !== undefined && sameItems(this.#head, headMessages)) return;
    const key = headMessages.map(contentKey).join('\n');
    if (this.#headKey !== undefined && key !== this.#headKey) {
      this.#calibration = createCalibration();
      this.#last = undefined;
      this.#cut = undefined;
      this.#observed = undefined;
      this.#restoredAnchor = undefined;
      this.#schemaFloor.resetNotices();
    }
    this.#head = headMessages;
    this.#headKey = key;
  }
}

/** A message's or tool's content as a string, computed once per object. */
const CONTENT_KEYS = new WeakMap<object, string>();
function contentKey(item: object): string {
  let key = CONTENT_KEYS.get(item);
  if (key === undefined) {
    key = JSON.stringify(item);
    CONTENT_KEYS.set(item, key);
  }
  return key;
}

/**
 * Whether two lists hold the same items: the same objects (the tool loop's case, O(1) per item), or
 * objects with the same content (a proxy parses every request anew).
 */
function sameItems(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    const left = a[index] as object;
    const right = b[index] as object;
    if (left !== right && contentKey(left) !== contentKey(right)) return false;
  }
  return true;
}

/**
 * What a request adds to the previous one, for silent-truncation detection: set only when it appends
 * an assistant reply and tool results (a new user message may make templates drop earlier reasoning).
 */
function extension(
  reported: number,
  appended: readonly Message[],
  cache: EstimateCache,
): { reported: number; appendedRaw: number } | undefined {
  let appendedRaw = 0;
  for (const message of appended) {
    if (message.role === 'user' || message.role === 'system') return undefined;
    if (message.role === 'tool' && !hasUncountableContent([message]).uncountable)
      appendedRaw += cache.message(message).total;
  }
  return { reported, appendedRaw };
}

function truncatedMessage({
  estimate,
  budget,
  window,
  reserve,
  schemaTokens,
  messages,
  sources,
}: {
  estimate: number;
  budget: number;
  window: number;
  reserve: number;
  schemaTokens: number;
  messages: number;
  sources: readonly SchemaSource[];
}): string {
  const base = `the smallest request Spillway can build (the head and the newest turn, ${messages} messages) needs about ${estimate} prompt tokens, but the ${window}-token window leaves ${budget} after reserving ${reserve} for the reply`;
  if (budget <= 0) return `${base}; lower max_tokens or the reserve`;
  if (schemaTokens > budget / 2)
    return `${base}; tool schemas alone take about ${schemaTokens} (${describeSources(sources)}): disable servers, filter their tools or load them on demand, or send shorter schemas`;
  return `${base}; shorten the system prompt, the first user message or the newest tool output, or use a model with a larger window`;
}

/** A persisted anchor read back from storage, or undefined for anything malformed. */
function parseAnchor(value: unknown): PersistedAnchor | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const anchor = value as Record<string, unknown>;
  return Number.isInteger(anchor.messages) &&
    typeof anchor.digest === 'string' &&
    typeof anchor.tools === 'string' &&
    typeof anchor.reported === 'number' &&
    anchor.reported > 0
    ? (value as PersistedAnchor)
    : undefined;
}

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
import { ContextTruncatedError, HeadroomError } from '../errors/index.js';
import { pruneTurns } from '../prune/index.js';
import { describeSources, SchemaFloorTracker, type SchemaSource } from '../schemas/index.js';
import {
  applyCalibration,
  type Calibration,
  createCalibration,
  createEstimator,
  EstimateCache,
  observeCalibration,
  REQUEST_OVERHEAD,
  type TokenBreakdown,
  type TokenCounter,
  tokenizerFamilyOf,
} from '../tokens/index.js';
import {
  assertPairing,
  type ChatRequest,
  type Message,
  splitTurns,
  validatePairing,
} from '../transcript/index.js';
import type { ManagerEvent, ManagerNotice } from './events.js';

/** Options of a {@link ContextWindowManager}. */
export interface ContextWindowManagerOptions {
  /** The model's context window. Unknown: the conservative 8,192 fallback. */
  contextLength?: number;
  /** The model's reply cap. */
  outputCap?: number;
  /** The model id, for the tokenizer family and learned windows. Requests may carry their own. */
  model?: string;
  /** Count with this instead of Headroom's estimator (an exact tokenizer, for instance). */
  counter?: TokenCounter;
  /** A fixed reply reserve, instead of `max_tokens` / the output cap / 2% of the window. */
  reserve?: number;
  /** Share of the window kept free for estimation error (default 0.03). */
  safetyRatio?: number;
  /** When to set or lower `max_tokens` (default `auto`: fill it in when the request has none). */
  clamp?: ClampMode;
  /** The calibration factor a run starts from (default 1.0; see {@link createCalibration}). */
  calibrationSeed?: number;
  /** Receives `fit`, `prune`, `calibrate` and `notice` events. */
  onEvent?: (event: ManagerEvent) => void;
  /**
   * Whether {@link ContextWindowManager.observe} checks usage for a silent truncation (a server that
   * cut the prompt to its window and answered 200, as Ollama does) and learns the window (default true).
   */
  detectSilentTruncation?: boolean;
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
  readonly #schemaFloor = new SchemaFloorTracker();
  readonly #listeners = new Set<(event: ManagerEvent) => void>();

  constructor(options: ContextWindowManagerOptions = {}) {
    for (const key of ['contextLength', 'outputCap', 'reserve'] as const) {
      const value = options[key];
      if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
        throw new HeadroomError('invalid_config', `${key} must be a positive integer, got ${value}`);
      }
    }
    if (options.safetyRatio !== undefined && !(options.safetyRatio >= 0 && options.safetyRatio < 0.5)) {
      throw new HeadroomError(
        'invalid_config',
        `safetyRatio must be in [0, 0.5), got ${options.safetyRatio}`,
      );
    }
    this.#options = options;
    this.#calibration = createCalibration({ seed: options.calibrationSeed });
  }

  /** The calibration and learned windows, for suspend / resume. */
  get state(): ManagerState {
    return { calibration: this.#calibration, learnedWindows: this.#learned };
  }

  /** Restores state saved from {@link state}. */
  restore(state: ManagerState): void {
    this.#calibration = { ...state.calibration };
    this.#learned = { ...state.learnedWindows };
  }

  /** Forgets the run: calibration back to its seed, no anchor. Learned windows stay (they are facts about the server). */
  reset(): void {
    this.#calibration = createCalibration({ seed: this.#options.calibrationSeed });
    this.#last = undefined;
    this.#head = undefined;
    this.#headKey = undefined;
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
    const full = cache.request(request);
    const anchor = this.#anchorFor(request, cache);
    const fullEstimate = anchor ?? applyCalibration(this.#calibration, full.total);

    let messages = request.messages;
    let droppedTurns = 0;
    let estimate = fullEstimate;
    let breakdown = full;
    if (fullEstimate > budget) {
      const factor = this.#calibration.factor;
      const segmentation = splitTurns(request.messages);
      // Pruning works on raw estimates against the budget divided by the factor, so that its
      // additive arithmetic and the calibrated comparison agree exactly.
      const result = pruneTurns({
        messages: request.messages,
        segmentation,
        estimateOf: (message) => cache.message(message).total,
        fixed: fixedRaw,
        budget: Math.floor(budget / factor),
      });
      estimate = applyCalibration(this.#calibration, result.estimate);
      if (!result.fits || estimate > budget) {
        const schemaTokens = applyCalibration(this.#calibration, tools.total);
        const details = { estimate, budget, window, reserve, schemaTokens };
        throw new ContextTruncatedError(
          truncatedMessage({ ...details, messages: result.messages.length, sources: schema.floor.sources }),
          details,
        );
      }
      messages = result.messages;
      droppedTurns = result.droppedTurns;
      breakdown = cache.request({ messages, tools: request.tools });
      this.#emit({ type: 'prune', droppedTurns, before: fullEstimate, after: estimate, budget });
    }

    const pairing = validatePairing(messages);
    if (!pairing.ok) {
      throw new HeadroomError(
        'internal',
        `fitting produced an invalid transcript (${pairing.issues[0]?.message}); please report this`,
        { data: { issues: pairing.issues } },
      );
    }

    const maxTokens = clampOutputTokens({
      window,
      promptEstimate: estimate,
      outputCap: this.#options.outputCap,
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
    this.#emit({ type: 'notice', level: notice.level, message: notice.message, notice });
    return notice;
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
      outputCap: this.#options.outputCap,
      maxTokens,
      reserve: this.#options.reserve,
      safetyRatio: this.#options.safetyRatio,
    });
  }

  /** The anchored estimate: what the provider counted for the previous request plus the appended messages. */
  #anchorFor(request: ChatRequest, cache: EstimateCache): number | undefined {
    const last = this.#last;
    if (last?.anchor === undefined || !sameItems(last.tools, request.tools)) return undefined;
    const sent = last.messages;
    if (request.messages.length < sent.length) return undefined;
    if (!sameItems(sent, request.messages.slice(0, sent.length))) return undefined;
    const appended = cache.messages(request.messages.slice(sent.length));
    return last.anchor + applyCalibration(this.#calibration, appended.total);
  }

  #detectNewRun(messages: readonly Message[]): void {
    const { head } = splitTurns(messages);
    const headMessages = messages.slice(head.start, head.end);
    if (this.#head !== undefined && sameItems(this.#head, headMessages)) return;
    const key = headMessages.map(contentKey).join('\n');
    if (this.#headKey !== undefined && key !== this.#headKey) {
      this.#calibration = createCalibration({ seed: this.#options.calibrationSeed });
      this.#last = undefined;
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
  const base = `the smallest request Headroom can build (the head and the newest turn, ${messages} messages) needs about ${estimate} prompt tokens, but the ${window}-token window leaves ${budget} after reserving ${reserve} for the reply`;
  if (budget <= 0) return `${base}; lower max_tokens or the reserve`;
  if (schemaTokens > budget / 2)
    return `${base}; tool schemas alone take about ${schemaTokens} (${describeSources(sources)}): disable servers, filter their tools or load them on demand, or send shorter schemas`;
  return `${base}; shorten the system prompt, the first user message or the newest tool output, or use a model with a larger window`;
}

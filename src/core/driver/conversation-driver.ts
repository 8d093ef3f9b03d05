/**
 * @module
 * The send path: one driver per conversation fits every request, sends it through the transport it
 * is given, classifies a rejection, recovers at most once, applies the retry classes and learns
 * from what the provider reports. Every surface (the tool loop, the SDK adapters, the proxy, chat,
 * the demo) drives this one implementation.
 */
import type { Summarizer } from '../compact/index.js';
import { ContextTruncatedError, SpillwayError } from '../errors/index.js';
import {
  ContextWindowManager,
  type ContextWindowManagerOptions,
  type FitResult,
  type ManagerNotice,
  type ManagerState,
  type UsageReport,
} from '../manager/index.js';
import { classifyOverflow, type OverflowInfo, type OverflowPattern } from '../overflow/index.js';
import { type RetryRecovery, recoverFromOverflow } from '../recovery/index.js';
import { type ChatRequest, hashText, type Message } from '../transcript/index.js';
import type { SpillwayEvent } from './driver-events.js';
import { exhaustionNote, invalidToolCall, isExhausted, reasoningFilled } from './exhaustion.js';
import {
  applyHistoryPrefix,
  type HashText,
  type HistoryPrefix,
  parseHistoryPrefix,
  prefixFromCompaction,
} from './history-prefix.js';
import {
  type AttemptObservation,
  type AttemptState,
  DEFAULT_RETRY_POLICY,
  initialAttemptState,
  nextAttempt,
  type RetryPolicy,
  type RetryReason,
  type SendFailureReason,
} from './retry-policy.js';
import type { DriverSendResult, HistoryChange, SendAttempt } from './send-result.js';
import type { ProviderAnswer, Transport, TransportResult, TransportSuccess } from './transport.js';

/** Options of a {@link ConversationDriver}: the manager's, and how sends are made. */
export interface ConversationDriverOptions extends Omit<ContextWindowManagerOptions, 'onEvent'> {
  /** Fit with this manager instead of one made from the options above. */
  manager?: ContextWindowManager;
  /** User overflow rows (`compileOverflowPatterns`), tried before the catalog. */
  overflowPatterns?: readonly OverflowPattern[];
  /** Retry allowances; the default is the tool loop's {@link DEFAULT_RETRY_POLICY}. */
  retry?: Partial<RetryPolicy>;
  /** Output cap of a compaction summary request (default 16,384, never more than half the window). */
  summaryMaxTokens?: number;
  /**
   * Whether the caller continues with the history a send returns (the tool loop does). Otherwise (a
   * proxy's client, an SDK caller resend their own history) a compaction is remembered as a
   * replacement for the history's prefix and applied to every later request that starts with it.
   */
  adoptsHistory?: boolean;
  /** The hash for remembered prefixes (default FNV-1a 64; the proxy passes SHA-256). */
  hash?: HashText;
  /**
   * Send every request as the caller built it: no fitting, no clamp, no recovery (an overflow is a
   * provider error). The retry classes still apply. For baselines and for runs without a window.
   */
  passthrough?: boolean;
  /**
   * Counts a request exactly when only the estimate's margin says it may not fit (a server's
   * counting endpoint, `createServerCounter` in `spillway/models`). Without it such a request goes
   * out for the provider to judge.
   */
  measure?: MeasureRequest;
  onEvent?: (event: SpillwayEvent) => void;
}

/** Inputs of one {@link ConversationDriver.send}. */
export interface DriverSendOptions<Response> {
  /** The request as the caller built it, whole history included. */
  request: ChatRequest;
  transport: Transport<Response>;
  /** Writes compaction summaries; without it recovery skips the model steps. */
  summarize?: Summarizer;
  signal?: AbortSignal;
}

/** A fit, or why nothing can be sent. */
type FitAttempt = { ok: true; fit: FitResult } | { ok: false; error: ContextTruncatedError };

/** Counts a request exactly (a server's counting endpoint); `undefined` when it cannot. */
export type MeasureRequest = (
  request: ChatRequest,
  options: { signal?: AbortSignal },
) => Promise<number | undefined>;

/** A driver's state between sends: plain data, for a suspended run or a proxy's store. */
export interface DriverState {
  manager: ManagerState;
  /** A compaction remembered as a prefix replacement (callers that resend their history). */
  prefix?: HistoryPrefix;
}

/** The history and request of a send as it goes: recovery and the exhaustion retry change them. */
interface Working {
  caller: ChatRequest;
  /** The history after the remembered prefix, and after any change made during this send. */
  history: Message[];
  changes: HistoryChange[];
  /** A request to send as it is (recovery's), instead of fitting the history. */
  override?: ChatRequest;
  /** A note for the model, on this send's retries only. */
  note?: Message;
  extra?: Record<string, unknown>;
  recovery?: RetryRecovery;
}

/**
 * Drives one conversation's sends.
 *
 * @example
 * const driver = new ConversationDriver({ contextLength: 32_768, model: 'qwen2.5-coder' });
 * const result = await driver.send({ request, transport, summarize });
 * if (!result.ok) throw result.error;
 * if (result.history) history = result.history; // recovery compacted it
 */
export class ConversationDriver {
  readonly manager: ContextWindowManager;
  readonly #options: ConversationDriverOptions;
  readonly #policy: RetryPolicy;
  readonly #hash: HashText;
  readonly #listeners = new Set<(event: SpillwayEvent) => void>();
  #prefix: HistoryPrefix | undefined;

  constructor(options: ConversationDriverOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new SpillwayError(
        'invalid_config',
        'ConversationDriver takes an options object, such as { contextLength: 128000, model: "gpt-4o" }',
      );
    const {
      manager,
      overflowPatterns: _patterns,
      retry,
      summaryMaxTokens: _summary,
      adoptsHistory: _adopts,
      hash,
      passthrough: _passthrough,
      measure: _measure,
      onEvent,
      ...rest
    } = options;
    this.#options = options;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...retry };
    this.#hash = hash ?? hashText;
    this.manager = manager ?? new ContextWindowManager(rest);
    if (onEvent) this.#listeners.add(onEvent);
    this.manager.subscribe((event) => this.#emit(event));
  }

  /** Adds an observer of every event (manager and driver); returns the function that removes it. */
  subscribe(listener: (event: SpillwayEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calibration, learned limits, sticky cut state and the remembered prefix. */
  get state(): DriverState {
    return { manager: this.manager.state, ...(this.#prefix ? { prefix: this.#prefix } : {}) };
  }

  /** Restores a state saved from {@link state}; a malformed prefix is dropped. */
  restore(state: Partial<DriverState>): void {
    if (state.manager) this.manager.restore(state.manager);
    this.#prefix = parseHistoryPrefix(state.prefix);
  }

  /** Fits a request as `send` would, without sending it (the remembered prefix applied). */
  fit(request: ChatRequest): FitResult {
    return this.manager.fit(this.#withPrefix(request));
  }

  /**
   * Feeds back usage the provider reported after `send` returned (a stream's final chunk). Returns
   * the notice of a silent truncation: the reply is already the caller's, so only the next send is
   * fitted to the window the report showed.
   */
  observe(usage: UsageReport): ManagerNotice | undefined {
    if (!(usage.promptTokens > 0)) return undefined;
    const notice = this.manager.observe(usage);
    this.#emit({ type: 'usage', ...usage });
    return notice;
  }

  /**
   * Fits the request, sends it, and on a rejection classifies, recovers once and retries; repeats an
   * attempt under the retry classes. Provider failures come back as values; a throw is a bug.
   */
  async send<Response>(options: DriverSendOptions<Response>): Promise<DriverSendResult<Response>> {
    const { transport, signal } = options;
    const working: Working = {
      caller: options.request,
      history: this.#withPrefix(options.request).messages,
      changes: [],
    };
    let state: AttemptState = initialAttemptState();
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) return this.#failure(working, 'aborted', 'the send was aborted');
      const fitted = await this.#measured(this.#fitAttempt(working), working, signal);
      if (!fitted.ok) return this.#failure(working, 'context_truncated', fitted.error.message, fitted.error);
      const { fit } = fitted;
      const result = await transport.send(fit.request, {
        ...(signal ? { signal } : {}),
        attempt,
        fit,
        classify: (answer) => this.#classify(answer, fit),
      });
      const seen = await this.#observeAttempt(result, fit, working, signal);
      const step = nextAttempt(state, seen.observation, this.#policy);
      state = step.state;
      const { decision } = step;
      if (decision.next === 'return' && result.ok)
        return this.#success(working, { response: result.response, fit, attempt });
      if (decision.next === 'fail')
        return this.#failure(
          working,
          decision.reason,
          failureMessage(decision.reason, state, seen.message),
          errorOf(result),
          {
            fit,
            ...(seen.overflow ? { overflow: seen.overflow } : {}),
          },
        );
      if (decision.next === 'retry') {
        this.#emit({
          type: 'retry',
          reason: decision.reason,
          attempt: decision.attempt,
          message: seen.message ?? '',
        });
        if (decision.reason === 'context_exhausted' && result.ok)
          await this.#makeRoom(working, result, fit, options);
        continue;
      }
      const failed = await this.#recover(working, seen.overflow as OverflowInfo, fit, options);
      if (failed) return failed;
    }
  }

  /**
   * A fit only the estimate's margin calls too large, settled by a count when the caller can take one
   * (a server's counting endpoint): the count is noted as the request's own, and the request fitted
   * again on it. Without a count, or when counting fails, it goes out for the provider to judge.
   */
  async #measured(
    fitted: FitAttempt,
    working: Working,
    signal: AbortSignal | undefined,
  ): Promise<FitAttempt> {
    const measure = this.#options.measure;
    if (!fitted.ok || fitted.fit.verdict !== 'uncertain' || measure === undefined || working.override)
      return fitted;
    const counted = await measure(fitted.fit.request, signal === undefined ? {} : { signal });
    if (counted === undefined || !(counted > 0)) return fitted;
    this.manager.noteCount({ request: fitted.fit.request, promptTokens: counted });
    this.#emit({
      type: 'count',
      promptTokens: counted,
      estimate: fitted.fit.estimate,
      budget: fitted.fit.budget,
    });
    return this.#fitAttempt(working);
  }

  #fitAttempt(working: Working): FitAttempt {
    if (working.override) {
      const request = working.override;
      working.override = undefined;
      return { ok: true, fit: this.manager.describeFitted(request, working.caller.messages) };
    }
    const messages = working.note ? [...working.history, working.note] : working.history;
    const request: ChatRequest = {
      ...working.caller,
      messages,
      ...(working.extra ? { extra: { ...working.caller.extra, ...working.extra } } : {}),
    };
    if (this.#options.passthrough)
      return { ok: true, fit: this.manager.describeFitted(request, working.caller.messages) };
    try {
      return { ok: true, fit: this.manager.fit(request) };
    } catch (error) {
      if (ContextTruncatedError.isInstance(error)) return { ok: false, error };
      throw error;
    }
  }

  /** What an attempt came to, with the usage fed back and the rejection classified. */
  async #observeAttempt(
    result: TransportResult<unknown>,
    fit: FitResult,
    working: Working,
    signal: AbortSignal | undefined,
  ): Promise<{ observation: AttemptObservation; overflow?: OverflowInfo; message?: string }> {
    if (!result.ok) {
      if (result.failure === 'aborted')
        return { observation: { kind: 'aborted' }, message: 'the send was aborted' };
      if (result.failure === 'stream_interrupted')
        return {
          observation: { kind: result.stalled === true ? 'stream_stalled' : 'stream_interrupted' },
          message: messageOf(result.error),
        };
      if (result.failure === 'failed')
        return { observation: { kind: 'failed' }, message: messageOf(result.error) };
      const overflow =
        result.overflow ??
        this.#classify(
          {
            ...(result.status === undefined ? {} : { status: result.status }),
            ...(result.body === undefined ? { error: result.error } : { body: result.body }),
          },
          fit,
        );
      if (overflow.kind === 'none')
        return { observation: { kind: 'failed' }, message: messageOf(result.error) };
      if (this.#options.passthrough)
        return {
          observation: { kind: 'failed' },
          overflow,
          message: `the provider rejected the request as too large for the window (${overflow.kind}); fit requests with a driver that is not passthrough to recover`,
        };
      this.#emit({
        type: 'overflow',
        kind: overflow.kind,
        pattern: overflow.pattern,
        ...(result.status === undefined ? {} : { status: result.status }),
      });
      return {
        observation: { kind: 'overflow', overflow },
        overflow,
        message: `the provider rejected the request as too large for the window (${overflow.kind}, ${overflow.pattern})`,
      };
    }
    const notice = result.usage ? await this.#observeSent(result.usage, fit, signal) : undefined;
    // The reply answers a prompt the server cut: fitted to the window it kept, the turn is resent.
    if (notice?.code === 'silent_truncation' && notice.window !== undefined && !this.#options.passthrough)
      return { observation: { kind: 'silent_truncation' }, message: notice.message };
    const invalid = invalidToolCall(result.toolCalls);
    if (invalid)
      return {
        observation: { kind: 'invalid_tool_arguments' },
        message: `arguments of ${invalid.name} (${invalid.id}) are not valid JSON: ${invalid.arguments.slice(0, 80)}`,
      };
    if (isExhausted(result, fit, working.caller.maxTokens))
      return { observation: { kind: 'context_exhausted' }, message: 'the reply was cut off by the window' };
    return { observation: { kind: 'answered' } };
  }

  /**
   * Feeds back a send's usage; a truncation only the estimate suspects is settled by a count of the
   * request when the caller can take one (a server's counting endpoint), never learned without it.
   */
  async #observeSent(
    usage: UsageReport,
    fit: FitResult,
    signal: AbortSignal | undefined,
  ): Promise<ManagerNotice | undefined> {
    const notice = this.observe(usage);
    const measure = this.#options.measure;
    if (notice?.code !== 'suspected_truncation' || measure === undefined) return notice;
    const counted = await measure(fit.request, signal === undefined ? {} : { signal });
    if (counted === undefined || !(counted > 0)) return notice;
    return this.manager.confirmTruncation({ promptTokens: counted, reported: usage.promptTokens }) ?? notice;
  }

  /**
   * The least the rejected request's prompt counts, for a rejection without figures: the fit's own
   * count when it was measured, else a count of the request when the caller can take one. Without
   * either, recovery learns from the estimate's lower bound.
   */
  async #promptCount(
    overflow: OverflowInfo,
    fit: FitResult,
    signal: AbortSignal | undefined,
  ): Promise<{ low: number; trusted: boolean } | undefined> {
    if (overflow.kind !== 'context' || overflow.input !== undefined || overflow.window !== undefined)
      return undefined;
    if (fit.countSource === 'anchored' || fit.countSource === 'exact')
      return { low: fit.estimate, trusted: true };
    const measure = this.#options.measure;
    if (measure === undefined) return undefined;
    const counted = await measure(fit.request, signal === undefined ? {} : { signal });
    if (counted === undefined || !(counted > 0)) return undefined;
    this.#emit({ type: 'count', promptTokens: counted, estimate: fit.estimate, budget: fit.budget });
    return { low: counted, trusted: true };
  }

  /**
   * Classifies one provider answer: the one place Spillway does, with the caller's overflow rows
   * (tried before the catalog) and the fit's estimate and window (for figures a bare status implies).
   */
  #classify(answer: ProviderAnswer, fit: FitResult): OverflowInfo {
    const patterns = this.#options.overflowPatterns;
    return classifyOverflow({
      ...(answer.status === undefined ? {} : { status: answer.status }),
      ...(answer.body === undefined ? { error: answer.error } : { body: answer.body }),
      lastEstimate: fit.estimate,
      window: fit.window,
      ...(patterns?.length ? { patterns } : {}),
    });
  }

  /** Recovers from an overflow; returns a failure when nothing can be sent. */
  async #recover(
    working: Working,
    overflow: OverflowInfo,
    fit: FitResult,
    options: DriverSendOptions<unknown>,
  ): Promise<DriverSendResult<never> | undefined> {
    const kind = overflow.kind as Exclude<OverflowInfo['kind'], 'none'>;
    const promptCount = await this.#promptCount(overflow, fit, options.signal);
    this.#emit({ type: 'compaction-start', reason: 'overflow' });
    const recovery = await recoverFromOverflow({
      request: fit.request,
      ...(promptCount ? { promptCount } : {}),
      history: working.note ? [...working.history, working.note] : working.history,
      overflow,
      manager: this.manager,
      ...(options.summarize ? { summarize: options.summarize } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(this.#options.summaryMaxTokens === undefined
        ? {}
        : { summaryMaxTokens: this.#options.summaryMaxTokens }),
    });
    this.#emit({
      type: 'recovery',
      action: recovery.action,
      overflow: kind,
      steps: recovery.steps,
      ...(recovery.action === 'give_up' ? { message: recovery.message } : {}),
    });
    if (recovery.action === 'give_up') {
      this.#emit({ type: 'compaction-end', removed: 0, kind: 'give_up' });
      return this.#failure(working, 'context_truncated', recovery.message, recovery.error, {
        fit,
        overflow,
        recovery,
      });
    }
    if ('messages' in recovery) {
      const after = working.note
        ? recovery.messages.filter((message) => message !== working.note)
        : recovery.messages;
      this.#changeHistory(working, { kind: recovery.action, after, removed: recovery.removed });
    }
    this.#emit({
      type: 'compaction-end',
      removed: 'removed' in recovery ? recovery.removed.length : 0,
      kind: recovery.action,
    });
    working.override = recovery.request;
    working.recovery = recovery;
    return undefined;
  }

  /** Room for a reply the window cut off: a compacted history and a note, or less reasoning. */
  async #makeRoom(
    working: Working,
    result: TransportSuccess<unknown>,
    fit: FitResult,
    options: DriverSendOptions<unknown>,
  ): Promise<void> {
    const prompt = result.usage?.promptTokens ?? fit.estimate;
    if (prompt >= 0.25 * fit.window) {
      this.#emit({ type: 'compaction-start', reason: 'exhaustion' });
      const compacted = await this.manager.compact({
        messages: working.history,
        tools: working.caller.tools,
        format: working.caller.format,
        ...(working.caller.model === undefined ? {} : { model: working.caller.model }),
        ...(options.summarize ? { summarize: options.summarize } : {}),
        ...(this.#options.summaryMaxTokens === undefined
          ? {}
          : { summaryMaxTokens: this.#options.summaryMaxTokens }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (compacted.ok)
        this.#changeHistory(working, {
          kind: 'exhaustion',
          after: compacted.messages,
          removed: compacted.removed,
        });
      this.#emit({
        type: 'compaction-end',
        removed: compacted.ok ? compacted.removed.length : 0,
        kind: compacted.ok ? 'compacted' : 'failed',
      });
      working.note = exhaustionNote(result.toolCalls);
    } else if (reasoningFilled(result) && working.caller.format === 'openai') {
      working.extra = { reasoning_effort: 'low' };
    }
  }

  #changeHistory(working: Working, change: Omit<HistoryChange, 'before'>): void {
    const before = working.history;
    working.history = change.after;
    working.changes.push({ ...change, before });
    if (this.#options.adoptsHistory) return;
    const remembered = prefixFromCompaction({
      caller: working.caller.messages,
      sent: before,
      compacted: change.after,
      ...(this.#prefix ? { previous: this.#prefix } : {}),
      hash: this.#hash,
    });
    if (remembered) this.#prefix = remembered;
  }

  #withPrefix(request: ChatRequest): ChatRequest {
    if (!this.#prefix || this.#options.adoptsHistory) return request;
    const messages = applyHistoryPrefix(request.messages, this.#prefix, this.#hash);
    return messages ? { ...request, messages } : request;
  }

  #success<Response>(
    working: Working,
    { response, fit, attempt }: { response: Response; fit: FitResult; attempt: number },
  ): DriverSendResult<Response> {
    return {
      ok: true,
      response,
      fit,
      attempts: attempt,
      changes: working.changes,
      ...(working.changes.length > 0 ? { history: working.history } : {}),
      ...(working.recovery ? { recovery: working.recovery } : {}),
    };
  }

  #failure(
    working: Working,
    reason: SendFailureReason,
    message: string,
    error?: unknown,
    extra: Partial<SendAttempt> = {},
  ): DriverSendResult<never> {
    return {
      ok: false,
      reason,
      message,
      ...(error === undefined ? {} : { error }),
      changes: working.changes,
      ...(working.changes.length > 0 ? { history: working.history } : {}),
      ...(working.recovery && !extra.recovery ? { recovery: working.recovery } : {}),
      ...extra,
    };
  }

  #emit(event: SpillwayEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

/** What a failed send says, with how often a retry class was spent. */
function failureMessage(reason: SendFailureReason, state: AttemptState, message: string | undefined): string {
  const detail = message ?? reason;
  if (reason === 'stream_interrupted' && state.stalled)
    return `the reply stream went silent (${detail}); the conversation is kept, send again when the provider answers`;
  if (reason === 'stream_interrupted')
    return `the reply stream broke off ${state.streamInterrupted + 1} times in a row (${detail}); check the connection to the provider and try again`;
  if (reason === 'invalid_tool_arguments')
    return `the model sent tool-call arguments that are not valid JSON, ${state.invalidToolArguments + 1} times in a row (${detail}); the conversation is kept, ask again or try another model`;
  if (reason === 'context_truncated' && state.recovered)
    return `the request still did not fit after recovery (${detail}); the conversation is kept`;
  return detail;
}

function errorOf(result: TransportResult<unknown>): unknown {
  return result.ok ? undefined : result.error;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'the send failed';
}

export type { RetryReason };

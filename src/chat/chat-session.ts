/**
 * @module
 * One chat: the conversation, its session in the store, and the tool loop that answers each prompt.
 */
import { randomUUID } from 'node:crypto';
import { type Budget, type ConversationDriver, computeBudget, type Message } from '../core/index.js';
import {
  type LoopEvent,
  type LoopResult,
  type LoopState,
  type LoopTool,
  runToolLoop,
} from '../loop/index.js';
import { type ResolvedLimits, serverRoot } from '../models/index.js';
import type { ModelClient } from '../providers/index.js';
import {
  type SessionHolder,
  type SessionRecord,
  type SessionStore,
  sessionHolder,
  sessionInUse,
  sessionStoreHooks,
  syncSessionStore,
} from '../store/index.js';
import { cancelledResults } from './cancelled-results.js';
import { type CompactHistoryResult, compactHistory } from './compact-history.js';
import { type ContextStatus, contextStatus, type LastExchange, type SentExchange } from './context-status.js';
import { emptyLoopState, loadSessionState } from './load-session-state.js';
import { reportToolCalls, type ToolCallReports } from './report-tool-calls.js';
import { addUsage, emptyUsage, type UsageFigures, withUsageMeter } from './session-usage.js';

/** The system prompt of a new session when the config sets none. */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a coding agent working in the user's project directory. Use the tools to look at files before you answer, keep answers short, and ask before large changes.";

/** Tool turns a prompt may take before the model is asked to answer without tools. */
export const DEFAULT_MAX_ITERATIONS = 20;

/** Options of a {@link ChatSession}. */
export interface ChatSessionOptions {
  client: ModelClient;
  model: string;
  /** The conversation's driver: fits, sends, recovers. */
  driver: ConversationDriver;
  /** The limits the driver was built from, with their sources. */
  limits: ResolvedLimits;
  /** The reserve the driver was given (`undefined`: the output cap or the default share). */
  reserve?: number;
  safetyRatio?: number;
  /** The tools for the next turn (re-read every turn: deferred MCP tools join once loaded). */
  tools: () => LoopTool[];
  store: SessionStore;
  systemPrompt?: string;
  maxIterations?: number;
  /** Output cap of a manual `/compact` summary (recovery's is the driver's own option). */
  summaryMaxTokens?: number;
  stream?: boolean;
}

/** Options of one {@link ChatSession.send}. */
export interface SendOptions extends ToolCallReports {
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
}

/** The model a session talks to, with what its window was resolved to. */
export interface ChatModel {
  model: string;
  driver: ConversationDriver;
  /** The limits the driver was built from, with their sources. */
  limits: ResolvedLimits;
  /** The reserve the driver was given (`undefined`: the output cap or the default share). */
  reserve?: number;
}

/**
 * A chat with a model: prompts become tool-loop runs through the conversation's driver, every turn is written
 * to the session store, and the conversation survives the process (`resume`).
 *
 * @example
 * const session = new ChatSession({ client, model, driver, limits, tools: () => tools, store });
 * const result = await session.send('Why do the tests fail?', { onEvent: print });
 * console.log(result.text, session.meter());
 */
export class ChatSession {
  #options: ChatSessionOptions;
  /** The client, counting the usage of every reply (summaries included) into the session's figures. */
  readonly #client: ChatSessionOptions['client'];
  #sessionId: string | undefined;
  #state: LoopState = emptyLoopState();
  /** The last request the provider counted, as sent, with its reply; and the exchange it made. */
  #lastSent: SentExchange | undefined;
  #lastExchange: LastExchange | undefined;
  #usage: UsageFigures = emptyUsage();
  /** This chat as the one writer of its session (the lock it holds in the store). */
  readonly #holder: SessionHolder = sessionHolder({ command: 'spillway chat' });

  constructor(options: ChatSessionOptions) {
    this.#options = options;
    this.#client = withUsageMeter(options.client, ({ usage, request, reply }) => {
      this.#usage = addUsage(this.#usage, usage);
      this.#lastSent = {
        prompt: usage.promptTokens,
        completion: usage.completionTokens,
        sent: [...request.messages, reply],
        tools: request.tools,
      };
    });
  }

  get id(): string | undefined {
    return this.#sessionId;
  }

  get model(): string {
    return this.#options.model;
  }

  get limits(): ResolvedLimits {
    return this.#options.limits;
  }

  get store(): SessionStore {
    return this.#options.store;
  }

  /** The history as the next request starts from it. */
  get messages(): readonly Message[] {
    return this.#state.messages;
  }

  get usage(): LoopState['usage'] {
    return this.#state.usage;
  }

  /** The window in force: learned from an overflow error, else the resolved one. */
  get window(): number {
    return this.#options.driver.manager.windowFor(this.#options.model) ?? this.#options.limits.contextLength;
  }

  /** The reserve given to the driver (`undefined`: the output cap or the default share). */
  get reserve(): number | undefined {
    return this.#options.reserve;
  }

  /** The prompt budget for the current window. */
  get budget(): number {
    return this.budgetFigures().budget;
  }

  /** The output cap in force: learned from an overflow error, else the resolved one. */
  get outputCap(): number | undefined {
    return this.#options.driver.manager.outputCapFor(this.#options.model) ?? this.#options.limits.outputCap;
  }

  /** Every figure of the budget in force: window, reserve, safety margin and prompt budget. */
  budgetFigures(): Budget {
    const { reserve, safetyRatio } = this.#options;
    return computeBudget({ contextLength: this.window, outputCap: this.outputCap, reserve, safetyRatio });
  }

  /** The session's token figures: requests, prompt tokens (cached and not), reply tokens. */
  get usageFigures(): UsageFigures {
    return this.#usage;
  }

  /** Talks to another model from the next prompt on; the history stays. */
  useModel({ model, driver, limits, reserve }: ChatModel): void {
    const { reserve: _previous, ...rest } = this.#options;
    this.#options = { ...rest, model, driver, limits, ...(reserve === undefined ? {} : { reserve }) };
    // The saved driver state (calibration, cut state) belongs to the model it was measured on.
    const { driver: _saved, ...state } = this.#state;
    this.#state = state;
    this.#forgetRun();
  }

  /** Sends a prompt and runs the tools the model asks for until it answers. */
  async send(
    text: string,
    { signal, onEvent, onToolCall, onToolError }: SendOptions = {},
  ): Promise<LoopResult> {
    const { store, driver, model, maxIterations = DEFAULT_MAX_ITERATIONS } = this.#options;
    const client = this.#client;
    const created = this.#sessionId === undefined;
    const sessionId = this.#ensureSession(text);
    const promptId = `prompt-${randomUUID().slice(0, 8)}`;
    const user: Message = { role: 'user', content: text };
    const added: Message[] =
      this.#state.messages.length === 0
        ? [{ role: 'system', content: this.#options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT }, user]
        : [user];
    this.#state.messages.push(...added);
    store.appendTurn(sessionId, { turnId: promptId, messages: added });
    const start = this.#state.iterations;
    const result = await runToolLoop({
      client,
      driver,
      model,
      resume: this.#state,
      // Read before every send: tools loaded on demand (MCP deferred loading) join the next request.
      tools: reportToolCalls(() => this.#options.tools(), {
        ...(onToolCall ? { onToolCall } : {}),
        ...(onToolError ? { onToolError } : {}),
      }),
      maxIterations: start + maxIterations,
      stream: this.#options.stream ?? true,
      hooks: sessionStoreHooks(store, sessionId),
      ...(signal ? { signal } : {}),
      ...(onEvent ? { onEvent } : {}),
    });
    this.#state = result.state;
    this.#afterRun({ result, sessionId, promptId, user, added, start });
    this.#recordExchange(result);
    if (created) this.#forgetIfNothingCameBack(result);
    return result;
  }

  /** Compacts the history now (`/compact`): a summary by the model, or a digest without one. */
  async compact({
    signal,
    onEvent,
  }: {
    signal?: AbortSignal;
    onEvent?: (event: LoopEvent) => void;
  } = {}): Promise<CompactHistoryResult> {
    const sessionId = this.#sessionId;
    if (sessionId === undefined || this.#state.messages.length === 0)
      return { ok: false, message: 'there is nothing to compact yet', steps: [] };
    onEvent?.({ type: 'compaction-start', iteration: this.#state.iterations, reason: 'manual' });
    const result = await compactHistory({
      // What the user asked for: everything before the newest turn, whatever room is left.
      keepTurns: 1,
      messages: this.#state.messages,
      tools: this.#options.tools(),
      client: this.#client,
      manager: this.#options.driver.manager,
      model: this.#options.model,
      ...(this.#options.summaryMaxTokens === undefined
        ? {}
        : { summaryMaxTokens: this.#options.summaryMaxTokens }),
      ...(signal ? { signal } : {}),
    });
    if (!result.ok) return result;
    this.#state.messages = result.messages;
    syncSessionStore({
      store: this.#options.store,
      sessionId,
      messages: result.messages,
      turnId: `compact-${randomUUID().slice(0, 8)}`,
      kind: result.kind,
      info: { manual: true, steps: result.steps },
    });
    onEvent?.({
      type: 'compaction-end',
      iteration: this.#state.iterations,
      removed: result.removed.length,
      kind: result.kind,
    });
    return result;
  }

  /**
   * Continues a stored session: its live transcript, turn count, usage and calibration. The session
   * is this chat's to write from here on; one that another running chat holds is refused, naming it.
   */
  resume(idOrPrefix: string): SessionRecord {
    const { store, driver } = this.#options;
    const { session, state } = loadSessionState(store, idOrPrefix);
    this.#take(session.id);
    if (this.#sessionId !== undefined && this.#sessionId !== session.id) this.#release();
    this.#state = state;
    driver.manager.reset();
    if (state.driver) driver.restore(state.driver);
    this.#sessionId = session.id;
    this.#forgetRun();
    // The store keeps prompt and reply tokens per request, not the cache figures.
    this.#usage = {
      ...emptyUsage(),
      requests: state.usage.providerCalls,
      promptTokens: state.usage.promptTokens,
      completionTokens: state.usage.completionTokens,
      withoutCacheFigure: state.usage.providerCalls,
    };
    return session;
  }

  /** Starts a new, empty session (the current one stays in the store, free for others to resume). */
  clear(): void {
    this.#release();
    this.#sessionId = undefined;
    this.#state = emptyLoopState();
    this.#options.driver.manager.reset();
    this.#forgetRun();
    this.#usage = emptyUsage();
  }

  /** How full the window is: the one figure the meter and `/context` show. */
  contextStatus(): ContextStatus {
    const figures = this.budgetFigures();
    return contextStatus({
      messages: this.#state.messages,
      tools: this.#options.tools(),
      model: this.#options.model,
      manager: this.#options.driver.manager,
      window: figures.window,
      budget: figures.budget,
      ...(this.#lastExchange ? { last: this.#lastExchange } : {}),
      ...(this.#lastSent ? { lastSent: this.#lastSent } : {}),
    });
  }

  /** Gives the session back: another chat may resume it now. */
  close(): void {
    this.#release();
  }

  #ensureSession(text: string): string {
    if (this.#sessionId !== undefined) return this.#sessionId;
    const title = text.replace(/\s+/g, ' ').trim().slice(0, 60);
    const id = this.#options.store.createSession({ title, model: this.#options.model }).id;
    this.#take(id);
    this.#sessionId = id;
    return id;
  }

  /** Takes a session for this chat alone, or fails naming who holds it. */
  #take(sessionId: string): void {
    const taken = this.#options.store.lockSession(sessionId, this.#holder);
    if (!taken.ok) throw sessionInUse(sessionId, taken.holder);
  }

  #release(): void {
    if (this.#sessionId === undefined) return;
    try {
      this.#options.store.unlockSession(this.#sessionId, this.#holder.token);
    } catch {
      // A store that cannot be written now keeps the lock until this process ends, which frees it.
    }
  }

  #forgetRun(): void {
    this.#lastSent = undefined;
    this.#lastExchange = undefined;
  }

  /** The provider's count of the run's last exchange, when the run ended with that reply. */
  #recordExchange(result: LoopResult): void {
    const sent = this.#lastSent;
    const ended = result.reason === 'completed' || result.reason === 'max_iterations';
    const messages = this.#state.messages;
    this.#lastExchange =
      ended && sent && messages.at(-1)?.role === 'assistant'
        ? { ...sent, messages, length: messages.length }
        : undefined;
  }

  /**
   * A new session whose first prompt failed before the model answered anything is taken out of the
   * store, so failed attempts (a wrong key, an unreachable server) do not fill the session list. A
   * stream that began and then broke off or went silent is kept: the provider was answering, and the
   * prompt is there to resume.
   */
  #forgetIfNothingCameBack(result: LoopResult): void {
    const sessionId = this.#sessionId;
    if (
      sessionId === undefined ||
      result.reason === 'completed' ||
      result.reason === 'max_iterations' ||
      result.reason === 'stream_interrupted'
    )
      return;
    if (this.#state.messages.some((message) => message.role === 'assistant')) return;
    this.#options.store.deleteSession(sessionId);
    this.#sessionId = undefined;
    this.#state = emptyLoopState();
    this.#forgetRun();
  }

  #afterRun({
    result,
    sessionId,
    promptId,
    user,
    added,
    start,
  }: {
    result: LoopResult;
    sessionId: string;
    promptId: string;
    user: Message;
    added: Message[];
    start: number;
  }): void {
    const { store, model, driver } = this.#options;
    if (result.reason === 'aborted') {
      const cancelled = cancelledResults(this.#state.messages);
      if (cancelled.length > 0) {
        this.#state.messages.push(...cancelled);
        store.appendTurn(sessionId, { turnId: `cancel-${promptId}`, messages: cancelled });
      }
    }
    // A prompt that cannot be sent at all is taken back, so the next one is not stuck behind it.
    // The loop works on a copy of the state, so the prompt is recognized by content, not identity.
    const last = this.#state.messages.at(-1);
    if (
      result.reason === 'context_truncated' &&
      this.#state.iterations === start &&
      last?.role === 'user' &&
      last.content === user.content
    ) {
      this.#state.messages.splice(-added.length, added.length);
      store.rollbackTurn(sessionId, promptId);
      result.message = `${result.message ?? 'the message does not fit'}; your message was not kept`;
    }
    const learned = driver.manager.state.learnedWindows[model];
    const scope = serverRoot(this.#options.client.baseUrl);
    if (learned !== undefined && store.learnedLimits({ scope })[model]?.contextLength !== learned)
      store.saveLearnedLimit(model, { contextLength: learned }, { scope });
  }
}

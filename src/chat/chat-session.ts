/**
 * @module
 * One chat: the conversation, its session in the store, and the tool loop that answers each prompt.
 */
import { randomUUID } from 'node:crypto';
import { type ConversationDriver, computeBudget, type Message } from '../core/index.js';
import {
  type LoopEvent,
  type LoopResult,
  type LoopState,
  type LoopTool,
  runToolLoop,
} from '../loop/index.js';
import type { ResolvedLimits } from '../models/index.js';
import type { ModelClient } from '../providers/index.js';
import {
  type SessionRecord,
  type SessionStore,
  sessionStoreHooks,
  syncSessionStore,
} from '../store/index.js';
import { type CompactHistoryResult, compactHistory } from './compact-history.js';
import { type ContextBreakdown, contextBreakdown } from './context-breakdown.js';
import { emptyLoopState, loadSessionState } from './load-session-state.js';
import { cancelledResults } from './sync-session-store.js';

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
export interface SendOptions {
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
  /** Called as a tool is about to run, with the arguments the model sent. */
  onToolCall?: (call: { name: string; args: unknown }) => void;
  /** Called when a tool failed, with what the model is told. */
  onToolError?: (failure: { name: string; message: string }) => void;
}

/** The context meter shown after a turn. */
export interface ContextMeter {
  /** Prompt tokens of the last request: the provider's count when it reported one, else the estimate. */
  tokens: number;
  reported: boolean;
  window: number;
  budget: number;
  /** Estimated tokens of the tool schemas. */
  schemas: number;
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
  readonly #options: ChatSessionOptions;
  #sessionId: string | undefined;
  #state: LoopState = emptyLoopState();
  #lastFit: { estimate: number; budget: number; window: number } | undefined;
  #lastReported: number | undefined;

  constructor(options: ChatSessionOptions) {
    this.#options = options;
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

  /** The prompt budget for the current window. */
  get budget(): number {
    const { limits, reserve, safetyRatio } = this.#options;
    return computeBudget({ contextLength: this.window, outputCap: limits.outputCap, reserve, safetyRatio })
      .budget;
  }

  /** Sends a prompt and runs the tools the model asks for until it answers. */
  async send(
    text: string,
    { signal, onEvent, onToolCall, onToolError }: SendOptions = {},
  ): Promise<LoopResult> {
    const { store, driver, client, model, maxIterations = DEFAULT_MAX_ITERATIONS } = this.#options;
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
      tools: this.#tools(onToolCall, onToolError),
      maxIterations: start + maxIterations,
      stream: this.#options.stream ?? true,
      hooks: sessionStoreHooks(store, sessionId),
      ...(signal ? { signal } : {}),
      onEvent: (event) => {
        this.#observe(event);
        onEvent?.(event);
      },
    });
    this.#state = result.state;
    this.#afterRun({ result, sessionId, promptId, user, added, start });
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
      client: this.#options.client,
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

  /** Continues a stored session: its live transcript, turn count, usage and calibration. */
  resume(idOrPrefix: string): SessionRecord {
    const { store, driver } = this.#options;
    const { session, state } = loadSessionState(store, idOrPrefix);
    this.#state = state;
    driver.manager.reset();
    if (state.driver) driver.restore(state.driver);
    this.#sessionId = session.id;
    this.#lastFit = undefined;
    this.#lastReported = undefined;
    return session;
  }

  /** Starts a new, empty session (the current one stays in the store). */
  clear(): void {
    this.#sessionId = undefined;
    this.#state = emptyLoopState();
    this.#options.driver.manager.reset();
    this.#lastFit = undefined;
    this.#lastReported = undefined;
  }

  /** Where the context goes (`/context`). */
  context(): ContextBreakdown {
    return contextBreakdown({
      messages: this.#state.messages,
      tools: this.#options.tools(),
      model: this.#options.model,
    });
  }

  /** The meter after a turn. */
  meter(): ContextMeter {
    const schemas = contextBreakdown({
      messages: [],
      tools: this.#options.tools(),
      model: this.#options.model,
    }).schemas.tokens;
    return {
      tokens: this.#lastReported ?? this.#lastFit?.estimate ?? 0,
      reported: this.#lastReported !== undefined,
      window: this.#lastFit?.window ?? this.window,
      budget: this.#lastFit?.budget ?? this.budget,
      schemas,
    };
  }

  #ensureSession(text: string): string {
    if (this.#sessionId !== undefined) return this.#sessionId;
    const title = text.replace(/\s+/g, ' ').trim().slice(0, 60);
    this.#sessionId = this.#options.store.createSession({ title, model: this.#options.model }).id;
    return this.#sessionId;
  }

  /**
   * The tools for the loop, wrapped to report calls and failures; each tool is wrapped once, so the
   * list keeps its identity between sends and the loop keeps the same tool block bytes.
   */
  #tools(onToolCall: SendOptions['onToolCall'], onToolError: SendOptions['onToolError']): () => LoopTool[] {
    if (!onToolCall && !onToolError) return () => this.#options.tools();
    const wrapped = new WeakMap<LoopTool, LoopTool>();
    const wrap = (tool: LoopTool): LoopTool => ({
      ...tool,
      execute: async (args, context) => {
        onToolCall?.({ name: tool.name, args });
        try {
          return await tool.execute(args, context);
        } catch (error) {
          onToolError?.({ name: tool.name, message: (error as Error).message ?? String(error) });
          throw error;
        }
      },
    });
    let source: LoopTool[] | undefined;
    let list: LoopTool[] = [];
    return () => {
      const tools = this.#options.tools();
      if (tools === source) return list;
      source = tools;
      list = tools.map((tool) => {
        let entry = wrapped.get(tool);
        if (!entry) {
          entry = wrap(tool);
          wrapped.set(tool, entry);
        }
        return entry;
      });
      return list;
    };
  }

  #observe(event: LoopEvent): void {
    if (event.type === 'fit') {
      this.#lastFit = { estimate: event.estimate, budget: event.budget, window: event.window };
      this.#lastReported = undefined;
    } else if (event.type === 'usage') this.#lastReported = event.promptTokens;
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
    if (learned !== undefined && store.learnedLimits()[model]?.contextLength !== learned)
      store.saveLearnedLimit(model, { contextLength: learned });
  }
}

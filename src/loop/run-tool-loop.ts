import {
  type AssistantMessage,
  type ChatRequest,
  CLAMP_MARGIN,
  type Content,
  ContextTruncatedError,
  type ContextWindowManager,
  contentText,
  type FitResult,
  type Message,
  type OverflowInfo,
  recoverFromOverflow,
  SpillwayError,
  type Summarizer,
  type ToolMessage,
} from '../core/index.js';
import { type ModelClient, type ModelResponse, ProviderError } from '../providers/index.js';
import type { SessionStore } from '../store/index.js';
import { limitToolResult, TOOL_RESULT_BUDGET_SHARE } from './limit-tool-result.js';
import type { LoopEvent } from './loop-events.js';
import { createLoopState, type LoopState } from './loop-state.js';
import type { TerminationReason } from './termination-reason.js';
import { definitionOf, type LoopTool } from './tool.js';
import { withSpan } from './tracing.js';

/** The retry classes: how often each kind of failed send is repeated before the run ends. */
export const STREAM_RETRIES = 3;
export const INVALID_ARGUMENTS_RETRIES = 1;

/** A reply counts as cut off by the window when prompt + completion reach this share of it. */
export const EXHAUSTION_RATIO = 0.95;
/** From this share of the window, an exhausted reply is retried after compacting. */
export const EXHAUSTION_COMPACT_RATIO = 0.25;

/** What a recovery returns (see `recoverFromOverflow` in core). */
export interface LoopRecoveryResult {
  action: string;
  /** The request to send once more. */
  request?: ChatRequest;
  /** The history to continue with, when recovery compacted it. */
  messages?: Message[];
  /** Messages taken out of the history, kept for the store's compaction record. */
  removed: Message[];
  steps: string[];
  message?: string;
}

/** How the loop recovers from an overflow; defaults to core's `recoverFromOverflow`. */
export type LoopRecover = (input: {
  request: ChatRequest;
  history: Message[];
  overflow: OverflowInfo;
  manager: ContextWindowManager;
  summarize?: Summarizer;
  signal?: AbortSignal;
}) => Promise<LoopRecoveryResult>;

/** Options of {@link runToolLoop}. */
export interface RunToolLoopOptions {
  client: ModelClient;
  /** Bounds every send. Without one the loop sends the full transcript (the lean wiring). */
  manager?: ContextWindowManager;
  /** The conversation so far (system prompt and user task). Ignored when `resume` is given. */
  messages?: Message[];
  /** A state saved from an earlier run (`result.state`), to continue it. */
  resume?: LoopState;
  /** The tools, or a function read before every send (deferred tool loading adds tools mid-run). */
  tools?: LoopTool[] | (() => LoopTool[]);
  model?: string;
  /** Tool turns before the synthesis send (default 20). */
  maxIterations?: number;
  /** Stop with `suspended` once this many turns are done (counted over resumes too). */
  suspendAfter?: number;
  /** The reply cap asked for on every send (the manager clamps when absent). */
  maxTokens?: number;
  /** Request fields passed through untouched (temperature, reasoning_effort…). */
  extra?: Record<string, unknown>;
  stream?: boolean;
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
  /** Overflow recovery; the default is core's escalation chain. */
  recover?: LoopRecover;
  /**
   * Writes compaction summaries (overflow recovery, context exhaustion). Default: the run's own
   * client and model, asked without tools; `false` for none (the chain then skips the model steps).
   */
  summarize?: Summarizer | false;
  /** Output cap of a summary request (default 16,384, never more than half the window). */
  summaryMaxTokens?: number;
  /** Compacts the history when a reply was cut off by the window; default: `manager.compact`. */
  compact?: (
    history: Message[],
    options: { signal?: AbortSignal },
  ) => Promise<{ messages: Message[]; removed: Message[]; kind: string }>;
  /**
   * The most one tool result may take, in estimated tokens; larger ones keep their start and end.
   * Default: half the prompt budget of the last send (with a manager), no limit without one.
   */
  maxToolResultTokens?: number;
  /** Writes every finished turn to a session, in one transaction. */
  store?: SessionStore;
  sessionId?: string;
}

/** How a run ended. */
export interface LoopResult {
  reason: TerminationReason;
  /** The last assistant text (the answer, when `completed` or `max_iterations`). */
  text: string;
  /** A message for people when the run did not complete. */
  message?: string;
  /** The state to resume from (history, usage, calibration). */
  state: LoopState;
  error?: unknown;
}

interface SendOutcome {
  response?: ModelResponse;
  fit?: FitResult;
  end?: { reason: TerminationReason; message: string; error?: unknown };
}

const SYNTHESIS_NOTE =
  'You have reached the step limit for this task. Do not call any tools. Answer now with what you found so far, and say what is left to do.';

/**
 * Runs a model with tools until it answers, bounding every provider send with the manager: the
 * in-loop tool send, a plain completion when there are no tools, and the synthesis send when the
 * iteration cap is hit (those two carry no tool schemas, so schema bytes never inflate them).
 * Streaming sends are bounded the same way. Overflows are recovered once per turn; interrupted
 * streams are retried up to 3 times and invalid tool-call JSON once; a reply cut off by the window is
 * retried once with room made for it.
 *
 * @example
 * const result = await runToolLoop({ client, manager, messages, tools, stream: true, onEvent });
 * if (result.reason === 'context_truncated') console.error(result.message);
 */
export async function runToolLoop(options: RunToolLoopOptions): Promise<LoopResult> {
  const { manager, maxIterations = 20, signal, onEvent, store, sessionId } = options;
  const state: LoopState = options.resume
    ? structuredClone(options.resume)
    : createLoopState(options.messages ?? []);
  if (options.resume?.manager && manager) manager.restore(options.resume.manager);
  if (state.messages.length === 0)
    throw new SpillwayError(
      'invalid_argument',
      'runToolLoop needs messages (at least the user task) or a state to resume',
    );
  // Tool definitions are rebuilt only when the tool list changes, so the request's tool block keeps
  // the same bytes (and the provider's prefix cache) from one send to the next.
  let toolList: LoopTool[] = [];
  let definitions: ChatRequest['tools'] = [];
  const currentTools = (): LoopTool[] => {
    const next = typeof options.tools === 'function' ? options.tools() : (options.tools ?? []);
    if (next.length !== toolList.length || next.some((tool, index) => tool !== toolList[index])) {
      toolList = next;
      definitions = next.map(definitionOf);
    }
    return toolList;
  };
  let lastText = '';
  const unsubscribe = manager && onEvent ? manager.subscribe(onEvent) : undefined;
  if (store && sessionId) {
    // The session holds the history the run starts from (the task, or what a resume carries).
    const stored = store.liveMessages(sessionId).length;
    if (stored < state.messages.length)
      store.appendTurn(sessionId, {
        turnId: `turn-${state.iterations}-start`,
        messages: state.messages.slice(stored),
      });
  }

  const end = (reason: TerminationReason, message?: string, error?: unknown): LoopResult => {
    unsubscribe?.();
    if (manager) state.manager = manager.state;
    onEvent?.({ type: 'end', reason, iterations: state.iterations });
    const result: LoopResult = { reason, text: lastText, state };
    if (message !== undefined) result.message = message;
    if (error !== undefined) result.error = error;
    return result;
  };

  for (;;) {
    if (signal?.aborted) return end('aborted', 'the run was aborted');
    const synthesis = state.iterations >= maxIterations;
    const turnStart = state.messages.length;
    const turnId = `turn-${state.iterations + 1}`;
    const byName = new Map(currentTools().map((tool) => [tool.name, tool]));
    const outcome = await sendBounded({
      options,
      state,
      definitions: synthesis ? [] : definitions,
      synthesis,
    });
    if (outcome.end) return end(outcome.end.reason, outcome.end.message, outcome.end.error);
    const response = outcome.response as ModelResponse;
    state.iterations++;
    const assistant = response.message;
    state.messages.push(assistant);
    lastText = contentText(assistant.content);
    const calls = synthesis ? [] : (assistant.toolCalls ?? []);
    if (synthesis && assistant.toolCalls?.length) {
      // The synthesis send carried no tools; a model that still asks for one gets no result.
      delete assistant.toolCalls;
    }
    // Results of one turn share the room: each may take its part of half the last send's budget.
    const budget = outcome.fit?.budget;
    const resultLimit =
      options.maxToolResultTokens ??
      (budget === undefined
        ? Number.POSITIVE_INFINITY
        : Math.floor((budget * TOOL_RESULT_BUDGET_SHARE) / Math.max(1, calls.length)));
    for (const call of calls) {
      if (signal?.aborted) break;
      const message = await runTool({
        call,
        tool: byName.get(call.name),
        signal,
        onEvent,
        iteration: state.iterations,
      });
      const limited = limitToolResult({
        content: message.content,
        maxTokens: resultLimit,
        ...(options.model ? { model: options.model } : {}),
      });
      if (limited.cut) {
        message.content = limited.content;
        onEvent?.({
          type: 'tool-result-cut',
          iteration: state.iterations,
          callId: call.id,
          name: call.name,
          maxTokens: resultLimit,
        });
      }
      state.messages.push(message);
    }
    if (store && sessionId) {
      const usage = response.usage
        ? [
            {
              promptTokens: response.usage.promptTokens,
              completionTokens: response.usage.completionTokens,
              ...(options.model ? { model: options.model } : {}),
            },
          ]
        : [];
      store.appendTurn(sessionId, {
        turnId,
        messages: state.messages.slice(turnStart),
        usage,
        state: { iterations: state.iterations, ...(manager ? { manager: manager.state } : {}) },
      });
    }
    if (signal?.aborted) return end('aborted', 'the run was aborted');
    if (synthesis)
      return end(
        'max_iterations',
        `stopped after ${maxIterations} tool turns; the answer is the model's synthesis of what it found`,
      );
    if (calls.length === 0) {
      const cut =
        response.finishReason === 'length'
          ? `the last reply was cut off at max_tokens (${outcome.fit?.request.maxTokens ?? options.maxTokens ?? 'the server default'}); raise max_tokens or the output cap for a longer answer`
          : undefined;
      return end('completed', cut);
    }
    if (options.suspendAfter !== undefined && state.iterations >= options.suspendAfter)
      return end('suspended', `suspended after turn ${state.iterations}; resume with this state`);
  }
}

async function runTool({
  call,
  tool,
  signal,
  onEvent,
  iteration,
}: {
  call: { id: string; name: string; arguments: string };
  tool: LoopTool | undefined;
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
  iteration: number;
}): Promise<ToolMessage> {
  onEvent?.({ type: 'tool-start', iteration, callId: call.id, name: call.name });
  let content: Content;
  let isError = false;
  if (!tool) {
    content = `Error: there is no tool named ${JSON.stringify(call.name)}.`;
    isError = true;
  } else {
    try {
      const args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      content = await tool.execute(args, { signal, callId: call.id });
    } catch (error) {
      content = `Error: ${(error as Error).message ?? String(error)}`;
      isError = true;
    }
  }
  onEvent?.({ type: 'tool-end', iteration, callId: call.id, name: call.name, isError });
  const message: ToolMessage = { role: 'tool', toolCallId: call.id, content };
  if (isError) message.isError = true;
  return message;
}

/** One bounded send with its retry classes, overflow recovery and exhaustion handling. */
async function sendBounded({
  options,
  state,
  definitions,
  synthesis,
}: {
  options: RunToolLoopOptions;
  state: LoopState;
  definitions: ChatRequest['tools'];
  synthesis: boolean;
}): Promise<SendOutcome> {
  const { client, manager, signal, onEvent, stream = false } = options;
  const iteration = state.iterations + 1;
  let streamRetries = 0;
  let argumentRetries = 0;
  let recovered = false;
  let exhaustionRetried = false;
  let override: ChatRequest | undefined;
  let note: string | undefined;
  // Lowered reasoning effort applies to this turn's retry only.
  let turnExtra: Record<string, unknown> = {};

  for (;;) {
    if (signal?.aborted) return { end: { reason: 'aborted', message: 'the run was aborted' } };
    const history = synthesis
      ? [...state.messages, { role: 'user' as const, content: SYNTHESIS_NOTE }]
      : note
        ? [...state.messages, { role: 'user' as const, content: note }]
        : state.messages;
    const request: ChatRequest = {
      format: client.format,
      messages: history,
      tools: definitions,
      extra: { ...options.extra, ...turnExtra },
    };
    if (options.model !== undefined) request.model = options.model;
    if (options.maxTokens !== undefined) request.maxTokens = options.maxTokens;

    let fit: FitResult | undefined;
    let toSend: ChatRequest = override ?? request;
    override = undefined;
    if (manager && toSend === request) {
      try {
        fit = manager.fit(request);
        toSend = fit.request;
      } catch (error) {
        if (ContextTruncatedError.isInstance(error))
          return { end: { reason: 'context_truncated', message: error.message, error } };
        throw error;
      }
    }
    onEvent?.({ type: 'send-start', iteration, tools: toSend.tools.length, synthesis });

    let response: ModelResponse;
    try {
      response = await withSpan(
        'spillway.send',
        {
          iteration,
          estimate: fit?.estimate,
          budget: fit?.budget,
          window: fit?.window,
          pruned_turns: fit?.droppedTurns,
        },
        () =>
          client.send(toSend, {
            signal,
            stream,
            ...(onEvent ? { onEvent: (event) => onEvent({ type: 'stream', iteration, event }) } : {}),
          }),
      );
    } catch (error) {
      if (!ProviderError.isInstance(error)) throw error;
      if (error.failure === 'aborted' || signal?.aborted)
        return { end: { reason: 'aborted', message: 'the run was aborted', error } };
      if (error.failure === 'stream_interrupted') {
        if (streamRetries < STREAM_RETRIES) {
          streamRetries++;
          onEvent?.({
            type: 'retry',
            iteration,
            reason: 'stream_interrupted',
            attempt: streamRetries,
            message: error.message,
          });
          continue;
        }
        return {
          end: {
            reason: 'stream_interrupted',
            message: `the reply stream broke off ${STREAM_RETRIES + 1} times in a row (${error.message}); check the connection to ${client.baseUrl} and try again`,
            error,
          },
        };
      }
      if (error.overflow.kind !== 'none') {
        const model = toSend.model ?? options.model;
        if (!manager)
          return {
            end: {
              reason: 'provider_error',
              message: `the provider rejected the request as too large for the window (${error.overflow.kind}); give the loop a ContextWindowManager to fit and recover`,
              error,
            },
          };
        if (recovered)
          return {
            end: {
              reason: 'context_truncated',
              message: `the request still did not fit after recovery (${error.overflow.kind}, ${error.overflow.pattern}); the conversation is kept`,
              error,
            },
          };
        const window = error.overflow.kind !== 'output_cap' ? error.overflow.window : undefined;
        if (window !== undefined && model !== undefined) manager.learnWindow(model, window);
        const recover = options.recover ?? recoverFromOverflow;
        onEvent?.({ type: 'compaction-start', iteration, reason: 'overflow' });
        const summarize = summarizerOf(options);
        const result = await recover({
          request: toSend,
          history: state.messages,
          overflow: error.overflow,
          manager,
          ...(summarize ? { summarize } : {}),
          ...(signal ? { signal } : {}),
        });
        onEvent?.({
          type: 'recovery',
          iteration,
          action: result.action,
          steps: result.steps,
          overflow: error.overflow.kind,
        });
        if (!result.request || result.action === 'give_up') {
          return {
            end: {
              reason: 'context_truncated',
              message:
                result.message ?? 'nothing Spillway can send fits the window; the conversation is kept',
              error,
            },
          };
        }
        if (result.messages) {
          persistCompaction(options, state.messages, result.messages, `turn-${iteration}`, result.action);
          state.messages = result.messages;
        }
        onEvent?.({ type: 'compaction-end', iteration, removed: result.removed.length, kind: result.action });
        recovered = true;
        override = result.request;
        continue;
      }
      return { end: { reason: 'provider_error', message: error.message, error } };
    }

    state.usage.providerCalls++;
    if (response.usage) {
      state.usage.promptTokens += response.usage.promptTokens;
      state.usage.completionTokens += response.usage.completionTokens;
      manager?.observe({
        promptTokens: response.usage.promptTokens,
        completionTokens: response.usage.completionTokens,
      });
      onEvent?.({ type: 'usage', iteration, usage: response.usage });
    }

    const invalid = (response.message.toolCalls ?? []).find((call) => !isJson(call.arguments));
    if (invalid && !synthesis) {
      if (argumentRetries < INVALID_ARGUMENTS_RETRIES) {
        argumentRetries++;
        onEvent?.({
          type: 'retry',
          iteration,
          reason: 'invalid_tool_arguments',
          attempt: argumentRetries,
          message: `arguments of ${invalid.name} (${invalid.id}) are not valid JSON`,
        });
        continue;
      }
      return {
        end: {
          reason: 'invalid_tool_arguments',
          message: `the model sent arguments for ${invalid.name} that are not valid JSON, twice in a row (${invalid.arguments.slice(0, 80)}…); the conversation is kept, ask again or try another model`,
        },
      };
    }

    const exhausted = isExhausted(response, fit, options.maxTokens);
    if (exhausted && !exhaustionRetried) {
      exhaustionRetried = true;
      const window = fit?.window;
      const prompt = response.usage?.promptTokens ?? fit?.estimate ?? 0;
      const cut = cutDescription(response.message);
      onEvent?.({
        type: 'retry',
        iteration,
        reason: 'context_exhausted',
        attempt: 1,
        message: `the reply was cut off by the window (${cut})`,
      });
      if (
        window !== undefined &&
        prompt >= EXHAUSTION_COMPACT_RATIO * window &&
        (options.compact || manager)
      ) {
        onEvent?.({ type: 'compaction-start', iteration, reason: 'exhaustion' });
        const summarize = summarizerOf(options);
        const compacted = options.compact
          ? { ok: true as const, ...(await options.compact(state.messages, signal ? { signal } : {})) }
          : await (manager as ContextWindowManager).compact({
              messages: state.messages,
              tools: definitions,
              format: client.format,
              ...(options.model === undefined ? {} : { model: options.model }),
              ...(summarize ? { summarize } : {}),
              ...(options.summaryMaxTokens === undefined
                ? {}
                : { summaryMaxTokens: options.summaryMaxTokens }),
              ...(signal ? { signal } : {}),
            });
        if (compacted.ok) {
          persistCompaction(options, state.messages, compacted.messages, `turn-${iteration}`, compacted.kind);
          state.messages = compacted.messages;
        }
        onEvent?.({
          type: 'compaction-end',
          iteration,
          removed: compacted.ok ? compacted.removed.length : 0,
          kind: compacted.ok ? compacted.kind : 'failed',
        });
        note = `Your previous reply was cut off because the context window ran out while you were writing ${cut}. Split the work into smaller steps (for example, write a large file in several parts).`;
      } else if (reasoningFilled(response)) {
        turnExtra = client.format === 'openai' ? { reasoning_effort: 'low' } : {};
      }
      continue;
    }
    return { response, ...(fit ? { fit } : {}) };
  }
}

function isJson(text: string): boolean {
  if (text.trim() === '') return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the reply stopped because the window ran out, rather than because it was done: prompt +
 * completion reached 95% of the window, or the clamp set `max_tokens` to the room the prompt left
 * (not the caller's own cap) and the reply ran into it.
 */
function isExhausted(
  response: ModelResponse,
  fit: FitResult | undefined,
  requested: number | undefined,
): boolean {
  if (response.finishReason === 'context_window') return true;
  if (response.finishReason !== 'length' || !fit) return false;
  const usage = response.usage;
  if (usage && usage.promptTokens + usage.completionTokens >= EXHAUSTION_RATIO * fit.window) return true;
  const maxTokens = fit.request.maxTokens;
  if (maxTokens === undefined || usage === undefined) return false;
  const roomLimited =
    maxTokens >= fit.window - fit.estimate - CLAMP_MARGIN &&
    (requested === undefined || maxTokens < requested);
  return roomLimited && usage.completionTokens >= maxTokens;
}

function reasoningFilled(response: ModelResponse): boolean {
  const usage = response.usage;
  return usage?.reasoningTokens !== undefined && usage.reasoningTokens >= 0.5 * usage.completionTokens;
}

function cutDescription(message: AssistantMessage): string {
  const call = message.toolCalls?.at(-1);
  return call ? `the call to ${call.name}` : 'the answer';
}

/** The summarizer: the caller's, or the run's own client and model asked without tools. */
function summarizerOf(options: RunToolLoopOptions): Summarizer | undefined {
  if (options.summarize === false) return undefined;
  if (options.summarize) return options.summarize;
  const { client, model } = options;
  return async (request, { signal }) => {
    const summaryRequest: ChatRequest = { ...request, tools: [] };
    if (summaryRequest.model === undefined && model !== undefined) summaryRequest.model = model;
    const response = await client.send(summaryRequest, signal ? { signal } : {});
    return {
      text: contentText(response.message.content),
      ...(response.usage ? { usage: response.usage } : {}),
    };
  };
}

/**
 * Writes a compaction to the session store: kept messages by their sequence number, new ones (the
 * summary, markers) as they are. The store's live transcript mirrors the run's history one to one.
 */
function persistCompaction(
  options: RunToolLoopOptions,
  before: readonly Message[],
  after: readonly Message[],
  turnId: string,
  kind: string,
): void {
  const { store, sessionId } = options;
  if (!store || !sessionId) return;
  const live = store.liveMessages(sessionId);
  const seqOf = new Map<Message, number>();
  before.forEach((message, index) => {
    const stored = live[index];
    if (stored) seqOf.set(message, stored.seq);
  });
  const transcript = after.map((message) => {
    const seq = seqOf.get(message);
    return seq === undefined ? { message } : { seq };
  });
  store.applyCompaction(sessionId, { turnId, kind, transcript });
}

/**
 * @module
 * `runToolLoop`: a model with tools, run until it answers, every send through the conversation's
 * driver (fitted, recovered once, retried by class).
 */
import {
  type ChatRequest,
  ConversationDriver,
  contentText,
  type DriverSendResult,
  type Message,
  SpillwayError,
  type Summarizer,
  sendPolicy,
  type ToolDefinition,
  toolResultLimit,
} from '../core/index.js';
import type { ModelClient, ModelResponse } from '../providers/index.js';
import { clientSummarizer, clientTransport } from './client-transport.js';
import { limitToolResult } from './limit-tool-result.js';
import type { LoopEvent } from './loop-events.js';
import type { LoopHooks } from './loop-hooks.js';
import { createLoopState, type LoopState } from './loop-state.js';
import { runTool } from './run-tool.js';
import type { TerminationReason } from './termination-reason.js';
import { definitionOf, type LoopTool } from './tool.js';
import { withSpan } from './tracing.js';

/** Options of {@link runToolLoop}. */
export interface RunToolLoopOptions {
  client: ModelClient;
  /**
   * The conversation's driver: fits every send and recovers. Without one the loop sends the full
   * transcript as built (a passthrough driver: the retry classes still apply).
   */
  driver?: ConversationDriver;
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
  /** The reply cap asked for on every send (the driver clamps when absent). */
  maxTokens?: number;
  /** Request fields passed through untouched (temperature, reasoning_effort…). */
  extra?: Record<string, unknown>;
  stream?: boolean;
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
  /**
   * Writes compaction summaries (overflow recovery, context exhaustion). Default: the run's own
   * client and model, asked without tools; `false` for none (recovery then skips the model steps).
   */
  summarize?: Summarizer | false;
  /**
   * The most one tool result may take, in estimated tokens; larger ones keep their start and end.
   * Default: half the prompt budget of the last send (with a driver), no limit without one.
   */
  maxToolResultTokens?: number;
  /** What the run tells its caller to keep (turns, history changes); the caller owns the storage. */
  hooks?: LoopHooks;
}

/** How a run ended. */
export interface LoopResult {
  reason: TerminationReason;
  /** The last assistant text (the answer, when `completed` or `max_iterations`). */
  text: string;
  /** A message for people when the run did not complete. */
  message?: string;
  /** The state to resume from (history, usage, driver state). */
  state: LoopState;
  error?: unknown;
}

const SYNTHESIS_NOTE =
  'You have reached the step limit for this task. Do not call any tools. Answer now with what you found so far, and say what is left to do.';

/** A run in progress. */
interface Run {
  options: RunToolLoopOptions;
  state: LoopState;
  driver: ConversationDriver;
  summarize: Summarizer | undefined;
  tools: () => { list: LoopTool[]; definitions: ToolDefinition[] };
  lastText: string;
}

/**
 * Runs a model with tools until it answers. Every provider send goes through the driver: the
 * in-loop tool send, a plain completion when there are no tools, and the synthesis send when the
 * iteration cap is hit (those two carry no tool schemas). Overflows are recovered once per turn;
 * interrupted streams are retried up to 3 times and invalid tool-call JSON once; a reply cut off by
 * the window is retried once with room made for it.
 *
 * @example
 * const result = await runToolLoop({ client, driver, messages, tools, stream: true, onEvent });
 * if (result.reason === 'context_truncated') console.error(result.message);
 */
export async function runToolLoop(options: RunToolLoopOptions): Promise<LoopResult> {
  const run = startRun(options);
  const { onEvent } = options;
  let iteration = run.state.iterations + 1;
  const unsubscribe = onEvent ? run.driver.subscribe((event) => onEvent({ ...event, iteration })) : undefined;
  const end = (reason: TerminationReason, message?: string, error?: unknown): LoopResult => {
    unsubscribe?.();
    run.state.driver = run.driver.state;
    onEvent?.({ type: 'end', reason, iterations: run.state.iterations });
    return {
      reason,
      text: run.lastText,
      state: run.state,
      ...(message === undefined ? {} : { message }),
      ...(error === undefined ? {} : { error }),
    };
  };
  const { maxIterations = 20, signal } = options;
  for (; ; iteration = run.state.iterations + 1) {
    if (signal?.aborted) return end('aborted', 'the run was aborted');
    const synthesis = run.state.iterations >= maxIterations;
    const result = await sendTurn(run, { iteration, synthesis });
    if (!result.ok) return end(result.reason, result.message, result.error);
    const added = await finishTurn(run, { iteration, synthesis, result });
    options.hooks?.onTurn?.({
      turnId: `turn-${iteration}`,
      messages: added,
      usage: usageOf(result.response, options.model),
      state: { iterations: run.state.iterations, driver: run.driver.state },
    });
    if (signal?.aborted) return end('aborted', 'the run was aborted');
    if (synthesis)
      return end(
        'max_iterations',
        `stopped after ${maxIterations} tool turns; the answer is the model's synthesis of what it found`,
      );
    if ((result.response.message.toolCalls?.length ?? 0) === 0)
      return end('completed', cutOffMessage(result.response, result.fit.request.maxTokens));
    if (options.suspendAfter !== undefined && run.state.iterations >= options.suspendAfter)
      return end('suspended', `suspended after turn ${run.state.iterations}; resume with this state`);
  }
}

function startRun(options: RunToolLoopOptions): Run {
  const state: LoopState = options.resume
    ? structuredClone(options.resume)
    : createLoopState(options.messages ?? []);
  if (state.messages.length === 0)
    throw new SpillwayError(
      'invalid_argument',
      'runToolLoop needs messages (at least the user task) or a state to resume',
    );
  const driver =
    options.driver ?? new ConversationDriver(sendPolicy({ surface: 'loop', passthrough: true }).driver);
  if (options.resume?.driver) driver.restore(options.resume.driver);
  options.hooks?.onStart?.(state.messages);
  // Tool definitions are rebuilt only when the tool list changes, so the request's tool block keeps
  // the same bytes (and the provider's prefix cache) from one send to the next.
  let list: LoopTool[] = [];
  let definitions: ToolDefinition[] = [];
  const tools = () => {
    const next = typeof options.tools === 'function' ? options.tools() : (options.tools ?? []);
    if (next.length !== list.length || next.some((tool, index) => tool !== list[index])) {
      list = next;
      definitions = next.map(definitionOf);
    }
    return { list, definitions };
  };
  const summarize =
    options.summarize === false
      ? undefined
      : (options.summarize ?? clientSummarizer(options.client, options.model));
  return { options, state, driver, summarize, tools, lastText: '' };
}

/** One bounded send: the request built from the history, sent through the driver. */
async function sendTurn(
  run: Run,
  { iteration, synthesis }: { iteration: number; synthesis: boolean },
): Promise<DriverSendResult<ModelResponse>> {
  const { options, state, driver } = run;
  const { client, onEvent, signal } = options;
  const note: Message | undefined = synthesis ? { role: 'user', content: SYNTHESIS_NOTE } : undefined;
  const tools = synthesis ? [] : run.tools().definitions;
  const request: ChatRequest = {
    format: client.format,
    messages: note ? [...state.messages, note] : state.messages,
    tools,
    extra: { ...options.extra },
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  };
  onEvent?.({ type: 'send-start', iteration, tools: tools.length, synthesis });
  const transport = clientTransport({
    client,
    stream: options.stream ?? false,
    ...(onEvent ? { onStream: (event) => onEvent({ type: 'stream', iteration, event }) } : {}),
  });
  const counted: typeof transport = {
    send: async (sent, attempt) => {
      const result = await transport.send(sent, attempt);
      if (result.ok) {
        state.usage.providerCalls++;
        state.usage.promptTokens += result.response.usage?.promptTokens ?? 0;
        state.usage.completionTokens += result.response.usage?.completionTokens ?? 0;
      }
      return result;
    },
  };
  const result = await withSpan('spillway.send', { iteration }, () =>
    driver.send({
      request,
      transport: counted,
      ...(run.summarize ? { summarize: run.summarize } : {}),
      ...(signal ? { signal } : {}),
    }),
  );
  for (const change of result.changes)
    options.hooks?.onHistoryChange?.({ ...change, turnId: `turn-${iteration}` });
  if (result.history)
    state.messages = note ? result.history.filter((message) => message !== note) : result.history;
  return result;
}

/** The reply and its tool results appended to the history; returns what the turn added. */
async function finishTurn(
  run: Run,
  {
    iteration,
    synthesis,
    result,
  }: {
    iteration: number;
    synthesis: boolean;
    result: Extract<DriverSendResult<ModelResponse>, { ok: true }>;
  },
): Promise<Message[]> {
  const { options, state } = run;
  const { signal, onEvent } = options;
  const assistant = result.response.message;
  // The synthesis send carried no tools; a model that still asks for one gets no result.
  if (synthesis && assistant.toolCalls?.length) delete assistant.toolCalls;
  state.iterations++;
  state.messages.push(assistant);
  run.lastText = contentText(assistant.content);
  const added: Message[] = [assistant];
  const calls = assistant.toolCalls ?? [];
  const byName = new Map(run.tools().list.map((tool) => [tool.name, tool]));
  // Results of one turn share the room: each may take its part of half the send's budget.
  const resultLimit =
    options.maxToolResultTokens ??
    (options.driver === undefined
      ? Number.POSITIVE_INFINITY
      : toolResultLimit({ budget: result.fit.budget, calls: calls.length }));
  for (const call of calls) {
    if (signal?.aborted) break;
    const message = await runTool({
      call,
      tool: byName.get(call.name),
      ...(signal ? { signal } : {}),
      ...(onEvent ? { onEvent } : {}),
      iteration,
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
        iteration,
        callId: call.id,
        name: call.name,
        maxTokens: resultLimit,
      });
    }
    state.messages.push(message);
    added.push(message);
  }
  return added;
}

function usageOf(response: ModelResponse, model: string | undefined) {
  if (!response.usage) return [];
  return [
    {
      promptTokens: response.usage.promptTokens,
      completionTokens: response.usage.completionTokens,
      ...(model ? { model } : {}),
    },
  ];
}

function cutOffMessage(response: ModelResponse, maxTokens: number | undefined): string | undefined {
  if (response.finishReason !== 'length') return undefined;
  return `the last reply was cut off at max_tokens (${maxTokens ?? 'the server default'}); raise max_tokens or the output cap for a longer answer`;
}

/**
 * @module
 * One demo run: the scripted session through one client, plain (the full transcript, `max_tokens`
 * as advertised) or through Spillway (a manager, recovery), with what happened at every request.
 */
import { type ConversationDriver, describeRecoveryStep, type OverflowKind } from '../core/index.js';
import type { Emulator } from '../emulator/index.js';
import { type LoopEvent, type LoopResult, runToolLoop } from '../loop/index.js';
import { type ModelClient, ProviderError } from '../providers/index.js';
import { DEMO_TASK, type DemoSession } from './demo-session.js';

/** The overflow kinds a run can hit. */
export type DemoOverflowKind = Exclude<OverflowKind, 'none'>;

/** One provider request of a run. */
export interface DemoRequest {
  turn: number;
  /** Prompt tokens the backend counted (rejected requests included). */
  promptTokens: number;
  /**
   * Prompt tokens the server kept, as its `usage` reported them; present only when it kept fewer
   * than it was sent (a silent truncation, as Ollama does beyond `num_ctx`).
   */
  keptTokens?: number;
  maxTokens?: number;
  accepted: boolean;
  /** How Spillway classified the rejection. */
  overflow?: DemoOverflowKind;
  /** The window the rejection stated. */
  window?: number;
}

/** What one run did. */
export interface DemoRun {
  name: 'plain' | 'spillway';
  reason: LoopResult['reason'];
  message?: string;
  turnsCompleted: number;
  /** Ended before the session's answer. */
  stuck: boolean;
  overflows: Record<DemoOverflowKind, number>;
  recoveries: number;
  providerCalls: number;
  /** The largest prompt the backend accepted, as it reported it. */
  promptTokensMax: number;
  /** Prompt tokens of every request, as the backend counted them. */
  promptTokensSent: number;
  requests: DemoRequest[];
  /** Every cut the manager made: old turns left out (all so far), old tool results elided. */
  prunes: Array<{ turn: number; droppedTurns: number; elided: number }>;
  compactions: Array<{ turn: number; removed: number; kind: string }>;
  /** The request the run could not get past. */
  stuckAt?: DemoRequest;
}

/** Options of {@link runDemoSession}. */
export interface RunDemoSessionOptions {
  name: DemoRun['name'];
  session: DemoSession;
  emulator: Emulator;
  client: ModelClient;
  model: string;
  /** Spillway's run has one; the plain run has none. */
  driver?: ConversationDriver;
  /** The plain run's fixed `max_tokens`. */
  maxTokens?: number;
  /** Called once per finished turn, with that turn's requests. */
  onTurn?: (turn: {
    run: DemoRun['name'];
    turn: number;
    requests: DemoRequest[];
    pruned: number;
    notes: string[];
  }) => void;
}

/** Records the overflow kind of every rejected send, as the loop's client saw it. */
function observedClient(
  client: ModelClient,
  onOverflow: (kind: DemoOverflowKind, window?: number) => void,
): ModelClient {
  return {
    format: client.format,
    baseUrl: client.baseUrl,
    async send(request, options) {
      try {
        return await client.send(request, options);
      } catch (error) {
        if (ProviderError.isInstance(error) && error.overflow.kind !== 'none')
          onOverflow(error.overflow.kind, error.overflow.window);
        throw error;
      }
    },
  };
}

/**
 * Runs the session: the task, `pasteAfter` turns, the user's paste, the rest. A run that ends in
 * anything but an answer is stuck there.
 *
 * @example
 * const run = await runDemoSession({ name: 'plain', session, emulator, client, model, maxTokens: 9_600 });
 */
export async function runDemoSession(options: RunDemoSessionOptions): Promise<DemoRun> {
  const { name, session, emulator, driver, model } = options;
  const run: DemoRun = {
    name,
    reason: 'completed',
    turnsCompleted: 0,
    stuck: false,
    overflows: { context: 0, budget: 0, output_cap: 0 },
    recoveries: 0,
    providerCalls: 0,
    promptTokensMax: 0,
    promptTokensSent: 0,
    requests: [],
    prunes: [],
    compactions: [],
  };
  const rejections: Array<{ kind: DemoOverflowKind; window?: number }> = [];
  const client = observedClient(options.client, (kind, window) =>
    rejections.push({ kind, ...(window ? { window } : {}) }),
  );
  let turn = 0;
  let seen = emulator.requests.length;
  let pruned = 0;
  let notes: string[] = [];
  const closeTurn = () => {
    if (turn === 0) return;
    const records = emulator.requests.slice(seen).filter((record) => record.chatNumber !== undefined);
    seen = emulator.requests.length;
    const requests = records.map((record): DemoRequest => {
      const accepted = record.status === 200;
      const rejection = accepted ? undefined : rejections.shift();
      const promptTokens = record.promptTokens ?? 0;
      const kept = record.reportedPromptTokens;
      return {
        turn,
        promptTokens,
        ...(accepted && kept !== undefined && kept < promptTokens ? { keptTokens: kept } : {}),
        ...(record.maxTokens === undefined ? {} : { maxTokens: record.maxTokens }),
        accepted,
        ...(rejection ? { overflow: rejection.kind } : {}),
        ...(rejection?.window === undefined ? {} : { window: rejection.window }),
      };
    });
    run.requests.push(...requests);
    options.onTurn?.({ run: name, turn, requests, pruned, notes });
    pruned = 0;
    notes = [];
  };
  const onEvent = (event: LoopEvent) => {
    if (event.type === 'send-start' && event.iteration !== turn) {
      closeTurn();
      turn = event.iteration;
    } else if (event.type === 'cut') {
      pruned = Math.max(pruned, event.droppedTurns);
      if (event.droppedTurns === 0 && event.elided > 0) notes.push(`elided ${event.elided} old tool results`);
      run.prunes.push({ turn, droppedTurns: event.droppedTurns, elided: event.elided });
    } else if (event.type === 'usage') {
      run.promptTokensMax = Math.max(run.promptTokensMax, event.promptTokens);
    } else if (event.type === 'recovery') {
      if (event.action !== 'give_up') run.recoveries++;
      notes.push(
        event.action === 'give_up'
          ? 'recovery gave up'
          : `recovered (${event.steps.map(describeRecoveryStep).join('; ') || event.action})`,
      );
    } else if (event.type === 'compaction-end') {
      run.compactions.push({ turn, removed: event.removed, kind: event.kind });
    }
  };
  const common = {
    client,
    model,
    tools: session.tools,
    stream: true,
    maxIterations: session.turns + 5,
    onEvent,
    ...(driver ? { driver } : {}),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  };
  let result = await runToolLoop({ ...common, messages: DEMO_TASK, suspendAfter: session.pasteAfter });
  if (result.reason === 'suspended')
    result = await runToolLoop({
      ...common,
      resume: { ...result.state, messages: [...result.state.messages, session.paste] },
    });
  closeTurn();
  run.reason = result.reason;
  if (result.message !== undefined) run.message = result.message;
  run.turnsCompleted = result.state.iterations;
  run.stuck = result.reason !== 'completed';
  for (const request of run.requests) {
    run.promptTokensSent += request.promptTokens;
    if (request.overflow) run.overflows[request.overflow]++;
  }
  run.providerCalls = run.requests.length;
  if (run.stuck) {
    const last = run.requests.at(-1);
    if (last && !last.accepted) run.stuckAt = last;
  }
  return run;
}

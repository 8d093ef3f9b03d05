/**
 * @module
 * Replays a recorded agent session through a {@link ConversationDriver}, step by step, as the agent's
 * client would through a proxy: every request carries the whole recorded history up to the step, the
 * driver fits and sends it, the replay provider answers with the recorded reply, and the driver learns
 * from the usage the provider reports.
 */
import {
  type ChatRequest,
  ConversationDriver,
  type ConversationDriverOptions,
  type Message,
  splitTurns,
} from '../../../src/core/index.js';
import type { Transcript } from './read-transcript.js';
import { countRequest, createReplayProvider, type ProviderCall } from './replay-provider.js';

/** Options of {@link replayTranscript}. */
export interface ReplayOptions {
  transcript: Transcript;
  /** The window the provider enforces and the driver is told. */
  window: number;
  /** The model id of every request (its tokenizer family is the provider's: o200k). */
  model?: string;
  /** The `max_tokens` every request asks for. */
  maxTokens?: number;
  /** Replay only the first this many steps. */
  steps?: number;
  /** More driver options (the window, model and history handling are the replay's). */
  driver?: Omit<ConversationDriverOptions, 'contextLength' | 'model' | 'adoptsHistory'>;
}

/** How one recorded step went. */
export interface StepOutcome {
  step: number;
  /** `answered`, or the driver's failure reason. */
  outcome: string;
  /** For a `context_truncated` failure: prompt tokens of the head and newest turn alone, on the provider's count. */
  smallestTokens?: number;
}

/** A provider call with the step it belongs to and what the caller had asked for. */
export interface ReplaySend extends ProviderCall {
  step: number;
  /** Whether the driver sent something else than the caller's history (pruned, compressed, recovered). */
  changed: boolean;
  /** Whether the conversation had a reply before this send. */
  afterResponse: boolean;
  /** The caller's request, as it came. */
  caller: ChatRequest;
}

/** What a replay came to. */
export interface ReplayRun {
  transcript: string;
  window: number;
  sends: ReplaySend[];
  steps: StepOutcome[];
}

export const REPLAY_MODEL = 'gpt-4o';
export const REPLAY_MAX_TOKENS = 4_096;

function sameMessages(sent: readonly Message[], caller: readonly Message[]): boolean {
  if (sent.length !== caller.length) return false;
  return sent.every(
    (message, index) =>
      message === caller[index] || JSON.stringify(message) === JSON.stringify(caller[index]),
  );
}

/** The head and newest turn of a request, alone: the least any fit can send. */
export function smallestRequest(request: ChatRequest): ChatRequest {
  const { head, turns } = splitTurns(request.messages);
  const newest = turns.at(-1);
  const messages = [
    ...request.messages.slice(head.start, head.end),
    ...(newest ? request.messages.slice(newest.start, newest.end) : []),
  ];
  return { ...request, messages };
}

/**
 * Replays `transcript` at `window`.
 *
 * @example
 * const run = await replayTranscript({ transcript, window: 16_384 });
 * run.sends.filter((send) => !send.accepted).length; // rejections
 */
export async function replayTranscript({
  transcript,
  window,
  model = REPLAY_MODEL,
  maxTokens = REPLAY_MAX_TOKENS,
  steps = transcript.steps.length,
  driver: driverOptions = {},
}: ReplayOptions): Promise<ReplayRun> {
  const provider = createReplayProvider({ window, model });
  const driver = new ConversationDriver({
    ...driverOptions,
    contextLength: window,
    model,
    adoptsHistory: false,
  });
  const sends: ReplaySend[] = [];
  const outcomes: StepOutcome[] = [];
  let answered = false;
  for (const [step, recorded] of transcript.steps.slice(0, steps).entries()) {
    const reply = transcript.messages[recorded.at] as Message;
    const caller: ChatRequest = {
      format: 'openai',
      model,
      messages: transcript.messages.slice(0, recorded.at),
      tools: [],
      maxTokens,
      extra: {},
    };
    provider.answerWith(reply);
    const before = provider.calls.length;
    const result = await driver.send({ request: caller, transport: provider.transport });
    for (const call of provider.calls.slice(before)) {
      sends.push({
        ...call,
        step,
        changed: !sameMessages(call.request.messages, caller.messages),
        afterResponse: answered,
        caller,
      });
    }
    if (result.ok) {
      answered = true;
      outcomes.push({ step, outcome: 'answered' });
    } else if (result.reason === 'context_truncated') {
      outcomes.push({ step, outcome: result.reason, smallestTokens: countRequest(smallestRequest(caller)) });
    } else {
      outcomes.push({ step, outcome: result.reason });
    }
  }
  return { transcript: transcript.name, window, sends, steps: outcomes };
}

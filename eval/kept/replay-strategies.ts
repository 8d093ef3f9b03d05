/**
 * @module
 * One trajectory replayed at one window by one strategy: at every step the caller's whole history up
 * to it goes in, and what comes out is the request actually sent (or nothing, when it was refused or
 * would be over the window). Spillway runs as users get it: a `ConversationDriver` with its defaults,
 * in front of the replay provider (the emulator's count, over-window requests rejected).
 */
import type { Message } from '../../src/core/index.js';
import { replayTranscript, type Transcript } from '../../test/support/transcript-replay/index.js';
import type { Baseline } from './baselines.js';
import { requestTokens } from './request-tokens.js';
import type { Trajectory } from './trajectories.js';

/** What each step sent, in step order; `undefined` where nothing was sent. */
export type SentRequests = Array<readonly Message[] | undefined>;

/** The reply room every replayed request asks for: an eighth of the window. */
export function maxTokensFor(window: number): number {
  return Math.floor(window / 8);
}

/**
 * The prompt budget a baseline fills: Spillway's own (the window less the reply room and 3% for
 * estimation error), counted with the provider's count, so every strategy fills the same room.
 */
export function baselineBudget(window: number): number {
  return Math.floor(window - maxTokensFor(window) - window * 0.03);
}

/** A trajectory as the replay reads it: its steps with no recorded usage. */
export function asTranscript(trajectory: Trajectory): Transcript {
  return {
    name: trajectory.name,
    header: {
      format: 'spillway-transcript-1',
      agent: trajectory.agent,
      source: trajectory.source as Transcript['header']['source'],
      trimmed: { stoppedAt: null, steps: trajectory.steps.length },
    },
    messages: trajectory.messages,
    steps: trajectory.steps.map((at) => ({
      at,
      usage: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 },
    })),
  };
}

/** Spillway's sends: the last accepted provider call of each step (`cutRunway` as given, else the default). */
export async function replaySpillway(
  trajectory: Trajectory,
  window: number,
  { cutRunway }: { cutRunway?: number } = {},
): Promise<SentRequests> {
  const run = await replayTranscript({
    transcript: asTranscript(trajectory),
    window,
    maxTokens: maxTokensFor(window),
    ...(cutRunway === undefined ? {} : { driver: { cutRunway } }),
  });
  const sent: SentRequests = trajectory.steps.map(() => undefined);
  for (const send of run.sends) if (send.accepted) sent[send.step] = send.request.messages;
  return sent;
}

/** A baseline's sends; a request still over the window after its cut is not sent. */
export function replayBaseline(
  baseline: Baseline,
  trajectory: Trajectory,
  window: number,
  needed: readonly (readonly string[])[],
): SentRequests {
  const choose = baseline.start();
  const budget = baselineBudget(window);
  return trajectory.steps.map((at, step) => {
    const history = trajectory.messages.slice(0, at);
    const messages = choose({ history, budget, needed: needed[step] ?? [] });
    return requestTokens(messages) + maxTokensFor(window) <= window ? messages : undefined;
  });
}

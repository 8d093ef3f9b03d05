/**
 * @module
 * The figures of one replayed run: needed-context recall over the steps whose whole history does not
 * fit, the share of steps sent, window use, prefix retention and uncached prompt tokens per step.
 */
import type { Message } from '../../src/core/index.js';
import { median } from '../../test/support/median.js';
import { commonPrefix } from '../../test/support/transcript-replay/index.js';
import { messageText } from './needed-items.js';
import { maxTokensFor, type SentRequests } from './replay-strategies.js';
import { requestTokens } from './request-tokens.js';
import type { Trajectory } from './trajectories.js';

/** The figures of one run (one trajectory, one window, one strategy). */
export interface RunFigures {
  trajectory: string;
  steps: number;
  /** Steps whose whole history does not fit the window (where recall is measured). */
  cutSteps: number;
  sent: number;
  /** Needed items over the cut steps, and how many of them the sent requests held. */
  needed: number;
  found: number;
  /** `found / needed`, or null without needed items. */
  recall: number | null;
  /**
   * The same, with Spillway's markers and stubs (`[pruned #…]`, `[elided #…]`) left out of what is
   * searched: what the request still holds as content, not as a name in a list of what went.
   */
  contentRecall: number | null;
  /** Median of sent prompt tokens / window over the cut steps. */
  windowUse: number | null;
  /** Mean over consecutive sends of the share of the previous request's messages the next starts with. */
  prefixRetention: number;
  /** Prompt tokens per step beyond the prefix shared with the previous send (what a cache cannot serve). */
  uncachedPerStep: number;
}

/** A message that is all marker or stub: it names what was left out, it does not hold it. */
const MARKER = /^\[(?:pruned|elided) #\d+:/;

/** Whether the whole history of a step fits the window with the reply room. */
export function historyFits(trajectory: Trajectory, step: number, window: number): boolean {
  const at = trajectory.steps[step] as number;
  return requestTokens(trajectory.messages.slice(0, at)) + maxTokensFor(window) <= window;
}

/**
 * Computes a run's figures.
 *
 * @example
 * runFigures({ trajectory, window: 8_192, sent, needed });
 */
export function runFigures({
  trajectory,
  window,
  sent,
  needed,
}: {
  trajectory: Trajectory;
  window: number;
  sent: SentRequests;
  needed: readonly (readonly string[])[];
}): RunFigures {
  let cutSteps = 0;
  let neededTotal = 0;
  let found = 0;
  let foundInContent = 0;
  const uses: number[] = [];
  const retained: number[] = [];
  let uncached = 0;
  let previous: readonly Message[] | undefined;
  sent.forEach((messages, step) => {
    const cut = !historyFits(trajectory, step, window);
    const items = needed[step] ?? [];
    if (cut) {
      cutSteps++;
      neededTotal += items.length;
    }
    if (messages === undefined) return;
    const tokens = requestTokens(messages);
    if (cut) {
      const texts = messages.map(messageText);
      const text = texts.join('\n');
      const content = texts.filter((one) => !MARKER.test(one)).join('\n');
      found += items.filter((item) => text.includes(item)).length;
      foundInContent += items.filter((item) => content.includes(item)).length;
      uses.push(tokens / window);
    }
    const shared = previous ? commonPrefix(previous, messages) : 0;
    if (previous && previous.length > 0) retained.push(shared / previous.length);
    uncached += tokens - (shared > 0 ? requestTokens(messages.slice(0, shared)) : 0);
    previous = messages;
  });
  const sentCount = sent.filter((messages) => messages !== undefined).length;
  return {
    trajectory: trajectory.name,
    steps: sent.length,
    cutSteps,
    sent: sentCount,
    needed: neededTotal,
    found,
    recall: neededTotal === 0 ? null : found / neededTotal,
    contentRecall: neededTotal === 0 ? null : foundInContent / neededTotal,
    windowUse: uses.length === 0 ? null : median(uses),
    prefixRetention:
      retained.length === 0 ? 1 : retained.reduce((sum, value) => sum + value, 0) / retained.length,
    uncachedPerStep: sent.length === 0 ? 0 : uncached / sent.length,
  };
}

/**
 * @module
 * The strategies Spillway is compared with, each choosing what one request keeps of the history:
 * dropping the oldest turns, masking all but the newest outputs, an opencode-style prune, and an
 * oracle that knows what the next action will use (the ceiling). Each one, when even the head and the
 * newest turn are over the budget, shortens the newest outputs the way Spillway does.
 */
import { contentText, type Message, newestToolRun, splitTurns } from '../../src/core/index.js';
import { argumentText, messageText } from './needed-items.js';
import { messageTokens, requestTokens } from './request-tokens.js';
import { shortenToFit } from './shorten-to-fit.js';

/** What a strategy sees at one step. */
export interface StepInput {
  history: readonly Message[];
  /** Prompt tokens the request may take. */
  budget: number;
  /** The items the next action will use (only the oracle looks). */
  needed: readonly string[];
}

/** A strategy: a fresh chooser per replayed run (some keep state from step to step). */
export interface Baseline {
  name: string;
  /** What it keeps, in a few words, for the table. */
  keeps: string;
  start(): (input: StepInput) => Message[];
}

/** The head, then the newest whole turns that fit; head and newest turn at least. */
export function dropOldestTurns(history: readonly Message[], budget: number): Message[] {
  const { head, turns } = splitTurns(history);
  if (turns.length === 0) return shortenToFit(history, budget);
  const headMessages = history.slice(head.start, head.end);
  let total = requestTokens(headMessages);
  let first = turns.length - 1;
  for (let index = turns.length - 1; index >= 0; index--) {
    const turn = turns[index] as { start: number; end: number };
    let cost = 0;
    for (let at = turn.start; at < turn.end; at++) cost += messageTokens(history[at] as Message);
    if (index < turns.length - 1 && total + cost > budget) break;
    total += cost;
    first = index;
  }
  const start = (turns[first] as { start: number }).start;
  return shortenToFit([...headMessages, ...history.slice(start)], budget);
}

function replaced(message: Message, text: string): Message {
  return { ...message, content: text } as Message;
}

/** Tool outputs a cut may touch: after the head, outside the newest tool run, oldest first. */
function oldOutputs(history: readonly Message[]): number[] {
  const { head } = splitTurns(history);
  const newest = newestToolRun(history);
  const indices: number[] = [];
  for (let index = head.end; index < history.length; index++) {
    const message = history[index] as Message;
    if (message.role === 'tool' && !newest.has(message.toolCallId)) indices.push(index);
  }
  return indices;
}

/** Observation masking: outputs oldest first replaced by a one-line notice until the request fits. */
export const observationMasking: Baseline = {
  name: 'observation masking',
  keeps: 'every turn; the newest outputs that fit, older outputs replaced by a notice',
  start:
    () =>
    ({ history, budget }) => {
      const out = history.slice();
      let total = requestTokens(out);
      for (const index of oldOutputs(history)) {
        if (total <= budget) break;
        const before = messageTokens(out[index] as Message);
        out[index] = replaced(out[index] as Message, '[old output omitted]');
        total += messageTokens(out[index] as Message) - before;
      }
      return total <= budget ? out : dropOldestTurns(out, budget);
    },
};

export const dropOldest: Baseline = {
  name: 'drop oldest turns',
  keeps: 'the newest whole turns that fit',
  start:
    () =>
    ({ history, budget }) =>
      dropOldestTurns(history, budget),
};

/** opencode's placeholder for a pruned tool output (packages/opencode/src/session/message-v2.ts). */
const OPENCODE_CLEARED = '[Old tool result content cleared]';
/** opencode protects the newest 40,000 tokens of tool output of a window of ~100k+ tokens and prunes
 * only when that frees 20,000 (session/compaction.ts PRUNE_PROTECT, PRUNE_MINIMUM): as shares of
 * the budget, 40% and 20%. */
const PROTECT_SHARE = 0.4;
const MINIMUM_SHARE = 0.2;

/**
 * opencode-style prune, run every step: tool outputs beyond the newest 40% of the budget are cleared
 * (sticky: once cleared, always cleared), then the oldest turns are dropped if it still does not fit.
 */
export const opencodePrune: Baseline = {
  name: 'opencode-style prune',
  keeps:
    'the newest outputs up to 40% of the budget; older outputs cleared, sticky; then oldest turns dropped',
  start: () => {
    const cleared = new Set<string>();
    return ({ history, budget }) => {
      let seen = 0;
      const candidates: string[] = [];
      let freed = 0;
      const indices = oldOutputs(history);
      for (let at = indices.length - 1; at >= 0; at--) {
        const message = history[indices[at] as number] as Message;
        if (message.role !== 'tool' || cleared.has(message.toolCallId)) continue;
        const tokens = messageTokens(message);
        seen += tokens;
        if (seen > budget * PROTECT_SHARE) {
          candidates.push(message.toolCallId);
          freed += tokens;
        }
      }
      if (freed > budget * MINIMUM_SHARE) for (const id of candidates) cleared.add(id);
      const out = history.map((message) =>
        message.role === 'tool' && cleared.has(message.toolCallId)
          ? replaced(message, OPENCODE_CLEARED)
          : message,
      );
      return requestTokens(out) <= budget ? out : dropOldestTurns(out, budget);
    };
  },
};

/** The lines of `text` that hold one of `items`; the whole text when an item spans lines. */
function linesHolding(text: string, items: readonly string[]): string {
  const wanted = items.filter((item) => text.includes(item));
  if (wanted.length === 0) return '';
  const kept = text
    .split('\n')
    .filter((line) => wanted.some((item) => line.includes(item)))
    .join('\n');
  return wanted.every((item) => kept.includes(item)) ? kept : text;
}

/** `message` reduced to the lines that hold the `needed` items (its tool calls' arguments too). */
function neededLines(message: Message, needed: readonly string[]): Message {
  if (message.role === 'assistant')
    return {
      ...message,
      content: linesHolding(contentText(message.content), needed),
      ...(message.toolCalls
        ? {
            toolCalls: message.toolCalls.map((call) => ({
              ...call,
              arguments: JSON.stringify({ kept: linesHolding(argumentText(call.arguments), needed) }),
            })),
          }
        : {}),
    };
  return replaced(message, linesHolding(contentText(message.content), needed) || '[omitted]');
}

/**
 * The oracle: knows the next action's items. Every older output and user message keeps only its lines
 * that hold one of them, assistant messages keep their calls and only text that holds one; the newest
 * turn stays whole unless it alone is over the budget, when it too keeps only those lines. The most
 * any selection can keep in the budget (the ceiling), not a strategy.
 */
export const oracle: Baseline = {
  name: 'oracle (knows the next action)',
  keeps: 'exactly the lines the next action uses',
  start:
    () =>
    ({ history, budget, needed }) => {
      const { head, turns } = splitTurns(history);
      const newestStart = turns.at(-1)?.start ?? history.length;
      const older = history.map((message, index) =>
        index < head.end || index >= newestStart ? message : neededLines(message, needed),
      );
      if (requestTokens(older) <= budget) return older;
      const all = older.map((message, index) =>
        index < head.end || message.role === 'assistant' ? message : neededLines(message, needed),
      );
      if (requestTokens(all) <= budget) return all;
      // Still over: whole older turns that hold none of the items go, oldest first.
      const text = (from: number, to: number) => all.slice(from, to).map(messageText).join('\n');
      const useless = turns
        .slice(0, -1)
        .filter((turn) => !needed.some((item) => text(turn.start, turn.end).includes(item)));
      let out = all;
      for (const turn of useless) {
        if (requestTokens(out) <= budget) break;
        const drop = new Set(all.slice(turn.start, turn.end));
        out = out.filter((message) => !drop.has(message));
      }
      return requestTokens(out) <= budget ? out : dropOldestTurns(out, budget);
    },
};

export const BASELINES: readonly Baseline[] = [dropOldest, observationMasking, opencodePrune, oracle];

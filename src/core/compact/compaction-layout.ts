/**
 * @module
 * Where a compaction cuts: what stays verbatim at the start (the system prompt, and the first user
 * message when it is small), the span to summarize, and the newest whole turns kept as they are.
 */
import { type Message, splitTurns } from '../transcript/index.js';

/** The first user message stays verbatim when it takes at most this share of the budget. */
export const HEAD_KEEP_RATIO = 0.25;
/** Without `keepTurns`, the newest turns are kept verbatim while they take at most this share of the budget. */
export const KEEP_TAIL_RATIO = 0.3;

/** A compaction's cut points, as message indices. */
export interface CompactionLayout {
  /** Messages `[0, keptHead)` stay verbatim. */
  keptHead: number;
  /** The span `[keptHead, boundary)` is compacted. */
  boundary: number;
  /** Whole turns kept verbatim after the span. */
  keptTurns: number;
  /** Turns in the transcript. */
  turns: number;
}

/**
 * Chooses the cut points. The kept tail is `keepTurns` whole turns (at least one), or as many newest
 * turns as fit in {@link KEEP_TAIL_RATIO} of the budget; turns are the units pruning keeps whole, so
 * the cut never separates a tool call from its result.
 */
export function compactionLayout({
  messages,
  budget,
  estimateOf,
  keepTurns,
}: {
  messages: readonly Message[];
  budget: number;
  estimateOf: (message: Message) => number;
  keepTurns?: number;
}): CompactionLayout {
  const { head, turns } = splitTurns(messages);
  let systems = 0;
  while (systems < messages.length && messages[systems]?.role === 'system') systems++;
  let headTokens = 0;
  for (let index = systems; index < head.end; index++) headTokens += estimateOf(messages[index] as Message);
  const keptHead = headTokens <= HEAD_KEEP_RATIO * Math.max(budget, 0) ? head.end : systems;
  if (turns.length === 0) return { keptHead, boundary: keptHead, keptTurns: 0, turns: 0 };
  let kept = keepTurns === undefined ? 0 : Math.max(1, Math.min(Math.floor(keepTurns), turns.length));
  if (keepTurns === undefined) {
    let tokens = 0;
    for (let turn = turns.length - 1; turn >= 0; turn--) {
      const range = turns[turn] as { start: number; end: number };
      for (let index = range.start; index < range.end; index++)
        tokens += estimateOf(messages[index] as Message);
      if (kept > 0 && tokens > KEEP_TAIL_RATIO * budget) break;
      kept++;
    }
  }
  const boundary = Math.max(keptHead, (turns[turns.length - kept] as { start: number }).start);
  return { keptHead, boundary, keptTurns: kept, turns: turns.length };
}

/**
 * Pairing-safe units of `[start, end)`: each message, except that tool results join the unit of the
 * assistant message that called them. A cut between units never orphans a result.
 */
export function compactionUnits(
  messages: readonly Message[],
  start: number,
  end: number,
): Array<[number, number]> {
  const units: Array<[number, number]> = [];
  for (let index = start; index < end; index++) {
    const last = units[units.length - 1];
    if (messages[index]?.role === 'tool' && last !== undefined) last[1] = index + 1;
    else units.push([index, index + 1]);
  }
  return units;
}

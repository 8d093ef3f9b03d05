import type { Message, Segmentation } from '../transcript/index.js';
import { splitTurns } from '../transcript/index.js';

/** Inputs of {@link pruneTurns}. */
export interface PruneOptions {
  messages: readonly Message[];
  /** The transcript's segmentation; computed when absent. */
  segmentation?: Segmentation;
  /** Estimated tokens of each message, by index. */
  estimateOf: (message: Message, index: number) => number;
  /** Tokens the request carries besides the messages (tool schemas, request overhead). */
  fixed?: number;
  /** Prompt tokens allowed. */
  budget: number;
  /** Turns a caller wants dropped regardless of the budget, counted from the oldest. */
  minDrop?: number;
}

/** What {@link pruneTurns} kept. */
export interface PruneResult {
  /** The kept messages: the head, then the newest turns, in order. */
  messages: Message[];
  /** Whole turns dropped, oldest first. */
  droppedTurns: number;
  /** Indices of the dropped messages in the input. */
  droppedIndices: number[];
  /** Estimate of what was kept, `fixed` included. */
  estimate: number;
  /** Whether the kept transcript fits the budget. False when even head + newest turn are over it. */
  fits: boolean;
}

/**
 * Drops the oldest whole turns (an assistant message with all its tool results and any user messages
 * that joined it) until the transcript fits the budget. The head and the newest turn are never
 * dropped, so tool-call pairing survives and the model always sees the task and the latest step.
 * Deterministic; a smaller budget never keeps more turns.
 *
 * @example
 * const result = pruneTurns({ messages, estimateOf: (m) => cache.message(m).total, budget: 90_000 });
 * if (!result.fits) throw new ContextTruncatedError(…);
 */
export function pruneTurns({
  messages,
  segmentation = splitTurns(messages),
  estimateOf,
  fixed = 0,
  budget,
  minDrop = 0,
}: PruneOptions): PruneResult {
  const { head, turns } = segmentation;
  let total = fixed;
  for (let index = head.start; index < head.end; index++)
    total += estimateOf(messages[index] as Message, index);
  const turnTotals = turns.map((range) => {
    let sum = 0;
    for (let index = range.start; index < range.end; index++)
      sum += estimateOf(messages[index] as Message, index);
    total += sum;
    return sum;
  });
  let dropped = 0;
  while (dropped < turns.length - 1 && (total > budget || dropped < minDrop)) {
    total -= turnTotals[dropped] as number;
    dropped++;
  }
  if (dropped === 0)
    return {
      messages: messages.slice(),
      droppedTurns: 0,
      droppedIndices: [],
      estimate: total,
      fits: total <= budget,
    };
  const firstKept = (turns[dropped] as { start: number }).start;
  const droppedStart = (turns[0] as { start: number }).start;
  const droppedIndices: number[] = [];
  for (let index = droppedStart; index < firstKept; index++) droppedIndices.push(index);
  return {
    messages: [...messages.slice(head.start, head.end), ...messages.slice(firstKept)],
    droppedTurns: dropped,
    droppedIndices,
    estimate: total,
    fits: total <= budget,
  };
}

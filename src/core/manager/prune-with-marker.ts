/**
 * @module
 * Step 6 of `fit`: whole turns pruned, with a recallable marker where they were.
 */
import type { CompressionState, LedgerEntry } from '../compress/index.js';
import { droppedTurnsMarker, MAX_LEDGER_CHARS, type MarkerOptions } from '../cut/index.js';
import { type PruneResult, pruneTurns } from '../prune/index.js';
import { type Calibration, type EstimateCache, scalarFactor } from '../tokens/index.js';
import { contentText, type Message, type Segmentation, type UserMessage } from '../transcript/index.js';
import { markerMessage, pruneMarker } from './placeholders.js';

/** Text as long as the longest list of what dropped turns read and ran, dense as paths are. */
const LEDGER_FILLER = 'src/pkg/mod_a.py, '
  .repeat(Math.ceil(MAX_LEDGER_CHARS / 18))
  .slice(0, MAX_LEDGER_CHARS);

/** Placeholders that stand for compacted or truncated history (what recovery and `compact` write). */
const SUMMARY_PLACEHOLDER = /^\[(compacted|truncated) #\d+:/;

/**
 * The segmentation with compaction summaries that follow the head counted as head: pruning drops the
 * oldest real turns first and keeps the summary of what came before them. A summary shares its turn
 * with whatever user messages follow it (turns start at assistant messages), such as the marker of a
 * cut in force: only the summaries join the head, the rest of that turn stays a turn of its own.
 * Nothing of the newest turn joins the head.
 */
export function keepSummariesWithHead(
  segmentation: Segmentation,
  messages: readonly Message[],
): Segmentation {
  const { head, turns } = segmentation;
  const newest = turns.at(-1);
  let end = head.end;
  while (newest !== undefined && end < newest.start && isSummary(messages[end])) end++;
  if (end === head.end) return segmentation;
  return {
    head: { start: head.start, end },
    turns: turns.flatMap((turn) =>
      turn.end <= end ? [] : [{ start: Math.max(turn.start, end), end: turn.end }],
    ),
  };
}

function isSummary(message: Message | undefined): boolean {
  return message?.role === 'user' && SUMMARY_PLACEHOLDER.test(contentText(message.content));
}

/**
 * Prunes whole turns and puts a marker after the head (`[pruned #12: 14 earlier messages (7 turns)
 * left out…]`), counted in the estimate; without the marker when only its few tokens stand between
 * the floor and the budget. Returns the compression state with the marker's recall id taken.
 */
export function pruneWithMarker({
  messages,
  segmentation,
  cache,
  fixedRaw,
  budget,
  calibration,
  state,
  markers,
  markerOptions,
  offset = { messages: 0, turns: 0 },
  limit,
  ledger,
}: {
  messages: Message[];
  segmentation: Segmentation;
  cache: EstimateCache;
  fixedRaw: number;
  budget: number;
  calibration: Calibration;
  state: CompressionState;
  markers: Map<string, UserMessage>;
  /** Whether the marker may mention `recall` (only where a recall tool is offered). */
  markerOptions: MarkerOptions;
  /** Messages and turns left out before these `messages` (an earlier cut), counted in the marker. */
  offset?: { messages: number; turns: number };
  /** The budget the request must fit, when `budget` is a deeper target (default `budget`). */
  limit?: number;
  /** What the first `dropped` messages after the head read and ran, for the marker to name. */
  ledger?: (dropped: number) => LedgerEntry[];
}): PruneResult & { marker?: { recallId: number }; state: CompressionState; head: number } {
  segmentation = keepSummariesWithHead(segmentation, messages);
  // Pruning works on raw estimates against the budget divided by the factor, so that its
  // additive arithmetic and the calibrated comparison agree exactly.
  const prune = (extra: number) =>
    pruneTurns({
      messages,
      segmentation,
      estimateOf: (message) => cache.message(message).total,
      fixed: fixedRaw + extra,
      budget: Math.floor(budget / scalarFactor(calibration)),
    });
  // The longest marker there can be, so the estimate holds whatever the counts come to.
  const markerRaw = cache.message({
    role: 'user',
    content: `${droppedTurnsMarker(
      { recallId: 99_999_999, dropped: 99_999_999, turns: 99_999_999 },
      markerOptions,
    )} ${LEDGER_FILLER}; read or run again what you need`,
  }).total;
  // The marker is there whenever turns are dropped, so the cut it stands for is the same on the
  // next send; only when its own tokens are all that stand between the floor and the budget does
  // the cut go without it (what is left then is the head and the newest turn alone).
  const result = prune(markerRaw);
  if (result.droppedTurns === 0) return { ...result, state, head: segmentation.head.end };
  const limitRaw = Math.floor((limit ?? budget) / scalarFactor(calibration));
  if (result.estimate > limitRaw && result.estimate - markerRaw <= limitRaw)
    return {
      ...result,
      estimate: result.estimate - markerRaw,
      fits: true,
      state,
      head: segmentation.head.end,
    };
  const dropped = result.droppedIndices.length + offset.messages;
  const marker = pruneMarker(
    state,
    { dropped, turns: result.droppedTurns + offset.turns, entries: ledger?.(dropped) ?? [] },
    markerOptions,
  );
  const head = segmentation.head.end;
  return {
    ...result,
    messages: [
      ...result.messages.slice(0, head),
      markerMessage(markers, marker.text),
      ...result.messages.slice(head),
    ],
    marker: { recallId: marker.recallId },
    state: marker.state,
    head,
  };
}

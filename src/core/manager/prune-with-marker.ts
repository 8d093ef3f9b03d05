/**
 * @module
 * Step 6 of `fit`: whole turns pruned, with a recallable marker where they were.
 */
import type { CompressionState, LedgerEntry } from '../compress/index.js';
import { droppedTurnsMarker, MAX_LEDGER_CHARS, type MarkerOptions, namesText } from '../cut/index.js';
import { type PruneResult, pruneTurns } from '../prune/index.js';
import type { EstimateCache } from '../tokens/index.js';
import { contentText, type Message, type Segmentation, type UserMessage } from '../transcript/index.js';
import { markerMessage, pruneMarker } from './placeholders.js';

/** Text of `chars` characters, dense as a list of paths and names is. */
function filler(chars: number): string {
  return 'src/pkg/mod_a.py, '.repeat(Math.ceil(chars / 18)).slice(0, chars);
}

/** Text as long as the longest list of what dropped turns read and ran. */
const LEDGER_FILLER = filler(MAX_LEDGER_CHARS);

/** Placeholders that stand for compacted or truncated history (what recovery and `compact` write). */
const SUMMARY_PLACEHOLDER = /^\[(compacted|truncated) #\d+:/;

/** The marker of a prune cut (`droppedTurnsMarker`). */
const PRUNE_MARKER = /^\[pruned #\d+:/;

/**
 * The segmentation a new cut works on. The marker of a cut in force is a turn of its own, the
 * oldest: the next cut takes it out with the turns it drops and says so in its own marker (the head
 * runs to the first assistant message, so without this the marker would join the head and stay,
 * beside the new one). Compaction summaries that follow the head count as head: pruning drops the
 * oldest real turns first and keeps the summary of what came before them. Nothing of the newest
 * turn joins the head.
 */
export function segmentForCut(segmentation: Segmentation, messages: readonly Message[]): Segmentation {
  const split = markerOutOfHead(segmentation, messages);
  const { head, turns } = split;
  const newest = turns.at(-1);
  let end = head.end;
  while (newest !== undefined && end < newest.start && isSummary(messages[end])) end++;
  if (end === head.end) return split;
  return {
    head: { start: head.start, end },
    turns: turns.flatMap((turn) =>
      turn.end <= end ? [] : [{ start: Math.max(turn.start, end), end: turn.end }],
    ),
  };
}

/** The head ended before a prune marker in it, the marker and what follows it in the head a turn. */
function markerOutOfHead(segmentation: Segmentation, messages: readonly Message[]): Segmentation {
  const { head, turns } = segmentation;
  for (let index = head.start + 1; index < head.end; index++) {
    const message = messages[index];
    if (message?.role === 'user' && PRUNE_MARKER.test(contentText(message.content)))
      return { head: { start: head.start, end: index }, turns: [{ start: index, end: head.end }, ...turns] };
  }
  return segmentation;
}

function isSummary(message: Message | undefined): boolean {
  return message?.role === 'user' && SUMMARY_PLACEHOLDER.test(contentText(message.content));
}

/**
 * The richest marker for a drop that `fits`: with its list of what the turns read and ran and the
 * names seen only there, then with fewer names, then without either; undefined when not even the
 * bare marker fits. The stored marker of the same drop is reused as it is (the same bytes).
 */
function richestMarker({
  state,
  dropped,
  turns,
  entries,
  names,
  markerOptions,
  fits,
}: {
  state: CompressionState;
  dropped: number;
  turns: number;
  entries: () => LedgerEntry[];
  names: () => string[];
  markerOptions: MarkerOptions;
  fits: (text: string) => boolean;
}): ReturnType<typeof pruneMarker> | undefined {
  if (state.pruned?.dropped === dropped) return pruneMarker(state, { dropped, turns }, markerOptions);
  const listed = entries();
  let named = names();
  for (;;) {
    const marker = pruneMarker(state, { dropped, turns, entries: listed, names: named }, markerOptions);
    if (fits(marker.text)) return marker;
    if (named.length === 0) break;
    named = named.slice(0, Math.floor(named.length / 2));
  }
  const bare = pruneMarker(state, { dropped, turns }, markerOptions);
  return fits(bare.text) ? bare : undefined;
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
  factor,
  state,
  markers,
  markerOptions,
  offset = { messages: 0, turns: 0 },
  limit,
  ledger,
  names,
  namesChars = 0,
}: {
  messages: Message[];
  segmentation: Segmentation;
  cache: EstimateCache;
  fixedRaw: number;
  budget: number;
  /** Real tokens per token of `cache`, at most: the plan's arithmetic is in `cache`'s tokens. */
  factor: number;
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
  /**
   * The names seen only in the first `dropped` messages after the head and not in `kept` (what the
   * request still carries), at most `namesChars` characters, for the marker to list.
   */
  names?: (dropped: number, kept: readonly Message[]) => string[];
  namesChars?: number;
}): PruneResult & { marker?: { recallId: number }; state: CompressionState; head: number } {
  segmentation = segmentForCut(segmentation, messages);
  // Pruning works on raw estimates against the budget divided by the factor, so that its
  // additive arithmetic and the calibrated comparison agree exactly.
  const prune = (extra: number) =>
    pruneTurns({
      messages,
      segmentation,
      estimateOf: (message) => cache.message(message).total,
      fixed: fixedRaw + extra,
      budget: Math.floor(budget / factor),
    });
  // The longest marker there can be, so the estimate holds whatever the counts come to.
  const markerRaw = cache.message({
    role: 'user',
    content: `${droppedTurnsMarker(
      { recallId: 99_999_999, dropped: 99_999_999, turns: 99_999_999 },
      markerOptions,
    )} ${LEDGER_FILLER} ${namesText(['x'])}${filler(namesChars)}; read or run again what you need`,
  }).total;
  // The marker is there whenever turns are dropped, so the cut it stands for is the same on the
  // next send. The cut is planned with the longest marker there can be; when the head and the
  // newest turn leave less room than that under the limit, the marker names less (fewer names,
  // then no list), and only when even the bare marker does not fit does the cut go without it.
  const result = prune(markerRaw);
  if (result.droppedTurns === 0) return { ...result, state, head: segmentation.head.end };
  const limitRaw = Math.floor((limit ?? budget) / factor);
  const rest = result.estimate - markerRaw;
  const dropped = result.droppedIndices.length + offset.messages;
  const turns = result.droppedTurns + offset.turns;
  const rawOf = (text: string) => cache.message({ role: 'user', content: text }).total;
  // Over the limit even without a marker, the newest turn is shortened next: the marker then lists
  // no names, so that they do not take room from the output the model is about to act on.
  const over = rest > limitRaw;
  const marker = richestMarker({
    state,
    dropped,
    turns,
    entries: () => ledger?.(dropped) ?? [],
    names: () => (over ? [] : (names?.(dropped, result.messages) ?? [])),
    markerOptions,
    fits: (text) => over || rawOf(text) <= limitRaw - rest,
  });
  if (marker === undefined)
    return { ...result, estimate: rest, fits: true, state, head: segmentation.head.end };
  const head = segmentation.head.end;
  const estimate = rest + rawOf(marker.text);
  return {
    ...result,
    estimate,
    fits: estimate <= limitRaw,
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

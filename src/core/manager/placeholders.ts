/**
 * @module
 * The placeholders `fit` leaves in a request and the recall spans behind them: compressed tool
 * results (their original text) and the pruned turns (the messages left out).
 */
import type { RecallSpan } from '../compact/index.js';
import {
  type CompressionEntry,
  type CompressionState,
  describeToolCall,
  indexToolCalls,
  type LedgerEntry,
} from '../compress/index.js';
import { droppedTurnsMarker, type MarkerOptions } from '../cut/index.js';
import type { Message, ToolCall, UserMessage } from '../transcript/index.js';
import { derivedFrom } from '../transcript/transcript-index.js';

/**
 * The prune marker for `dropped` messages, naming what they read and ran (`entries`): the stored one when the same number was pruned before
 * (the same bytes, so the prefix stays cacheable), else a new one with the next recall id.
 */
export function pruneMarker(
  state: CompressionState,
  {
    dropped,
    turns,
    entries = [],
    names = [],
  }: {
    dropped: number;
    turns: number;
    entries?: readonly LedgerEntry[];
    /** Names seen only in the dropped turns. */
    names?: readonly string[];
  },
  markerOptions: MarkerOptions,
): { state: CompressionState; text: string; recallId: number } {
  if (state.pruned?.dropped === dropped)
    return { state, text: state.pruned.text, recallId: state.pruned.recallId };
  const recallId = state.nextRecallId;
  const text = droppedTurnsMarker({ recallId, dropped, turns, entries, names }, markerOptions);
  return {
    state: { ...state, nextRecallId: recallId + 1, pruned: { recallId, dropped, text } },
    text,
    recallId,
  };
}

/** A user-role marker message, the same object for the same text. */
export function markerMessage(cache: Map<string, UserMessage>, text: string): UserMessage {
  let message = cache.get(text);
  if (message === undefined) {
    message = { role: 'user', content: text };
    cache.clear();
    cache.set(text, message);
  }
  return message;
}

/** Labels of tool calls, made once per call object: a label parses the call's arguments. */
const LABELS = new WeakMap<ToolCall, string>();

function labelOf(call: ToolCall | undefined, toolCallId: string): string {
  if (call === undefined) return `tool result ${toolCallId}`;
  let label = LABELS.get(call);
  if (label === undefined) {
    label = describeToolCall(call);
    LABELS.set(call, label);
  }
  return label;
}

/** A result with a stored level, found by {@link compressedResults}. */
interface CompressedResult {
  index: number;
  entry: CompressionEntry;
  /** The entry's recall id, as a span names it. */
  id: string;
  label: string;
}

/** The results with a stored level among a list's first messages, for one state. */
interface CompressedResults {
  state: CompressionState;
  found: CompressedResult[];
}

/**
 * Entries objects found to hold an entry: listing the keys of hundreds cost more than a send's other
 * passes together. Only a yes is kept (a no is cheap to find again), and a yes that no longer holds
 * only costs a search that finds nothing.
 */
const HAS_ENTRIES = new WeakSet<object>();

/** Whether `state` may have an entry. */
function hasEntries(state: CompressionState): boolean {
  if (HAS_ENTRIES.has(state.entries)) return true;
  for (const key in state.entries)
    if (Object.hasOwn(state.entries, key)) {
      HAS_ENTRIES.add(state.entries);
      return true;
    }
  return false;
}

/** The key the results are kept under with the list's walk. */
const COMPRESSED = Symbol('recallSpans');

/**
 * The tool results of `messages` with an entry in `state`, in order, with their labels: kept with the
 * list's walk, so a history that grew is searched from where the last search stopped.
 */
function compressedResults(messages: readonly Message[], state: CompressionState): CompressedResult[] {
  let made: CompressedResult[] = [];
  const kept = derivedFrom<CompressedResults>(messages, 'recallSpans', COMPRESSED, (previous) => {
    const usable = previous?.value.state === state ? previous : undefined;
    const found = usable ? usable.value.found.slice() : [];
    // The tool calls are indexed only once a compressed result is found: most sends have none.
    let calls: ReturnType<typeof indexToolCalls> | undefined;
    let complete = true;
    for (let index = usable?.length ?? 0; index < messages.length; index++) {
      const message = messages[index] as Message;
      if (message.role !== 'tool') continue;
      const entry = state.entries[message.toolCallId];
      if (entry === undefined) continue;
      calls ??= indexToolCalls(messages);
      const declaration = calls.get(message.toolCallId);
      // A call declared after its result (or not at all) may be declared by what comes next.
      if (declaration === undefined || declaration.index > index) complete = false;
      found.push({
        index,
        entry,
        id: String(entry.recallId),
        label: labelOf(declaration?.call, message.toolCallId),
      });
    }
    made = found;
    return complete ? { state, found } : undefined;
  });
  return kept?.found ?? made;
}

/**
 * The recall spans behind the placeholders of one fitted request: every compressed result still in
 * it (its original message) and the pruned span, if any.
 */
export function recallSpans({
  messages,
  kept,
  state,
  pruned,
}: {
  /** The request as the caller sent it to `fit`, results in full. */
  messages: readonly Message[];
  /** Indices of `messages` the fitted request keeps. */
  kept: (index: number) => boolean;
  state: CompressionState;
  pruned?: { recallId: number; messages: Message[] };
}): RecallSpan[] {
  const spans: RecallSpan[] = [];
  const found = hasEntries(state) ? compressedResults(messages, state) : [];
  for (let at = 0; at < found.length; at++) {
    const { index, entry, id, label } = found[at] as CompressedResult;
    if (kept(index)) spans.push({ id, kind: entry.level, label, messages: [messages[index] as Message] });
  }
  if (pruned)
    spans.push({
      id: String(pruned.recallId),
      kind: 'pruned',
      label: `${pruned.messages.length} messages pruned`,
      messages: pruned.messages,
    });
  return spans;
}

/**
 * @module
 * The placeholders `fit` leaves in a request and the recall spans behind them: compressed tool
 * results (their original text) and the pruned turns (the messages left out).
 */
import type { RecallSpan } from '../compact/index.js';
import {
  type CompressedResult,
  type CompressionState,
  compressedResults,
  describeToolCall,
  firstResultFrom,
  type LedgerEntry,
} from '../compress/index.js';
import { droppedTurnsMarker, type MarkerOptions } from '../cut/index.js';
import type { Message, ToolCall, UserMessage } from '../transcript/index.js';
import { derivedFrom, startsWithSame } from '../transcript/transcript-index.js';

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

/** The span of a compressed result: its original message, under its recall id. */
function spanOf({ entry, message, call }: CompressedResult): RecallSpan {
  return Object.freeze({
    id: String(entry.recallId),
    kind: entry.level,
    label: labelOf(call, message.toolCallId),
    messages: Object.freeze([message]),
  });
}

/** The spans of a list's compressed results, kept with its walk, and the results they were made of. */
interface Spans {
  results: readonly CompressedResult[];
  spans: readonly RecallSpan[];
}
const SPANS = Symbol('recallSpans');

/**
 * The spans of the compressed results of `messages`, one per result, in order: kept with the list's
 * walk, so a history sent again (whose search hands back the same results, more at its end) makes
 * spans only for the results it added. The spans are frozen: every fit that keeps a result hands out
 * the same one.
 */
function resultSpans(messages: readonly Message[], state: CompressionState): Spans {
  const { results, complete } = compressedResults(messages, state);
  // A search that is not complete is not kept (a call declared later may change it): nor are its spans.
  if (!complete || results.length === 0) return { results, spans: results.map(spanOf) };
  const kept = derivedFrom<Spans>(messages, 'recallSpans', SPANS, (previous) => {
    const earlier = previous?.value;
    const reused =
      earlier !== undefined && startsWithSame(results, earlier.results) ? earlier.results.length : 0;
    const spans = reused > 0 ? (earlier as Spans).spans.slice() : [];
    for (let at = reused; at < results.length; at++) spans.push(spanOf(results[at] as CompressedResult));
    return { results, spans };
  });
  return kept as Spans;
}

/**
 * The recall spans behind the placeholders of one fitted request: every compressed result still in
 * it (its original message) and the pruned span, if any. The results in the pruned span are not in
 * the request: they are passed over without being looked at.
 */
export function recallSpans({
  messages,
  state,
  pruned,
}: {
  /** The request as the caller sent it to `fit`, results in full. */
  messages: readonly Message[];
  state: CompressionState;
  /** The messages `[start, end)` of `messages` left out behind the marker with `recallId`. */
  pruned?: { recallId: number; messages: Message[]; start: number; end: number };
}): RecallSpan[] {
  const { results, spans: all } = resultSpans(messages, state);
  if (pruned === undefined) return all.slice();
  const spans = all
    .slice(0, firstResultFrom(results, pruned.start))
    .concat(all.slice(firstResultFrom(results, pruned.end)));
  spans.push({
    id: String(pruned.recallId),
    kind: 'pruned',
    label: `${pruned.messages.length} messages pruned`,
    messages: pruned.messages,
  });
  return spans;
}

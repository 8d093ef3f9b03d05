/**
 * @module
 * The placeholders `fit` leaves in a request and the recall spans behind them: compressed tool
 * results (their original text) and the pruned turns (the messages left out).
 */
import type { RecallSpan } from '../compact/index.js';
import {
  type CompressionState,
  compressedResults,
  describeToolCall,
  type LedgerEntry,
} from '../compress/index.js';
import { droppedTurnsMarker, type MarkerOptions } from '../cut/index.js';
import type { Message, ToolCall, UserMessage } from '../transcript/index.js';

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
  for (const { index, message, entry, call } of compressedResults(messages, state).results) {
    if (!kept(index)) continue;
    const label = labelOf(call, message.toolCallId);
    spans.push({ id: String(entry.recallId), kind: entry.level, label, messages: [message] });
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

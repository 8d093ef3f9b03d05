/**
 * @module
 * Sticky tool-result elision: tool results outside the newest tool run are replaced by a one-line
 * stub (`[elided #41: read_file src/app.ts, 3,210 tokens]`) until the request is down to a target,
 * those the agent stopped using longest ago first (`outputUses`). A stub never changes once written, so every
 * later request sends the same bytes and the provider's prefix cache holds.
 */
import {
  contentText,
  type Message,
  splitTurns,
  type ToolCall,
  type ToolMessage,
} from '../transcript/index.js';
import { applyCompression, type RenderMemo, renderedToolMessage, sourceOf } from './apply-compression.js';
import type { CompressionEntry, CompressionState } from './compression-state.js';
import { ledgerBack, ledgerEntry } from './ledger-entry.js';
import { outputUses } from './output-relevance.js';
import { renderLevel } from './render-level.js';
import { callPath, describeToolCall, indexToolCalls, staleReads } from './tool-activity.js';

/** Inputs of {@link elideToolResults}. */
export interface ElideToolResultsOptions {
  /** The transcript as the caller holds it, results in full. */
  messages: readonly Message[];
  state: CompressionState;
  /**
   * Elide until the calibrated estimate (`raw × factor`) is at most this. Absent with `all`.
   */
  target?: number;
  /** Elide every eligible result, whatever the size (the recovery chain's forced prune). */
  all?: boolean;
  /** Raw (uncalibrated) estimate of one message. */
  estimateOf: (message: Message) => number;
  /** Raw tokens of everything besides the messages (tool schemas, request overhead). */
  fixed?: number;
  /** The calibration factor raw estimates are multiplied by (default 1). */
  factor?: number;
  memo?: RenderMemo;
  /** Whether the caller offers the `recall` tool: stubs then name it as the way back. */
  recall?: boolean;
  /**
   * Calibrated tokens of the newest outputs kept whole, whatever their use (ignored with `all`): what
   * the agent read last is what it most likely works with next, so a cut deeper than the rest drops
   * old turns instead.
   */
  protect?: number;
}

/** What {@link elideToolResults} did. */
export interface ElideToolResultsResult {
  /** The transcript as the new state renders it. */
  messages: readonly Message[];
  state: CompressionState;
  /** Tool-call ids elided in this call, in transcript order. */
  elided: string[];
  /** The calibrated estimate of `messages` with `fixed`. */
  estimate: number;
  /** Index of the first message this call changed: everything before it is sent as before. */
  firstChanged?: number;
}

/**
 * Tool-call ids of the newest tool run (the results of the newest assistant message that called
 * tools): always sent in full, because the model is about to act on them.
 */
export function newestToolRun(messages: readonly Message[]): Set<string> {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0)
      return new Set(message.toolCalls?.map((call) => call.id));
  }
  return new Set();
}

/** The stub's words for what a result was and how to get it back (`read src/app.ts lines 1–40`). */
function describe(
  call: Pick<ToolCall, 'name' | 'arguments'> | undefined,
  id: string,
  recallId: number,
  recall: boolean,
): { description: string; back: string } {
  if (call === undefined)
    return {
      description: `tool result ${id}`,
      back: recall ? `recall #${recallId} brings it back` : 'call it again to see it',
    };
  const entry = ledgerEntry(call);
  const description = entry.kind === 'called' ? describeToolCall(call) : `${entry.kind} ${entry.text}`;
  return { description, back: recall ? `recall #${recallId} brings it back` : ledgerBack(entry.kind) };
}

/**
 * The elision order without the outputs used most recently whose tokens add up to at most `tokens`:
 * those stay whole, and a cut that needs more drops old turns instead.
 */
function keepInUse(order: number[], tokens: number, tokensOf: (index: number) => number): number[] {
  let total = 0;
  let end = order.length;
  while (end > 0 && total + tokensOf(order[end - 1] as number) <= tokens) {
    total += tokensOf(order[end - 1] as number);
    end--;
  }
  return order.slice(0, end);
}

/** Indices of the results a cut may elide: after the head, outside the newest tool run. */
function eligibleResults(messages: readonly Message[]): number[] {
  const { head } = splitTurns(messages);
  const protectedIds = newestToolRun(messages);
  const eligible: number[] = [];
  for (let index = head.end; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role === 'tool' && !protectedIds.has(message.toolCallId)) eligible.push(index);
  }
  return eligible;
}

/**
 * The results a cut may elide, in the order it elides them: the ones the agent stopped using longest
 * ago first (superseded ones before all others), then by age.
 */
export function elisionOrder(messages: readonly Message[], state: CompressionState): number[] {
  const elided = new Set(
    Object.entries(state.entries).flatMap(([id, entry]) => (entry.level === 'elided' ? [id] : [])),
  );
  const uses = outputUses({ messages, elided });
  const lastUse = (index: number) => uses.get((messages[index] as ToolMessage).toolCallId) ?? index;
  return eligibleResults(messages).sort((a, b) => lastUse(a) - lastUse(b) || a - b);
}

/**
 * Elides results, those the agent stopped using longest ago first ({@link elisionOrder}), until the calibrated estimate is at most
 * `target` (or every eligible one, with `all`). Results already elided stay as they are. When
 * nothing can be elided the input comes back rendered with the stored state, unchanged.
 *
 * @example
 * const result = elideToolResults({ messages, state, target: 40_000, estimateOf, factor });
 * state = result.state; // sticky: pass it to every later call
 */
export function elideToolResults(options: ElideToolResultsOptions): ElideToolResultsResult {
  const {
    messages,
    state,
    target,
    all = false,
    estimateOf,
    fixed = 0,
    factor = 1,
    memo,
    recall = false,
    protect = 0,
  } = options;
  const rendered = applyCompression({ messages, state, memo }).slice();
  const raw = rendered.map((message) => estimateOf(message));
  let rawTotal = fixed + raw.reduce((sum, value) => sum + value, 0);
  const estimate = () => Math.ceil(rawTotal * factor);
  const done = (): boolean => !all && (target === undefined || estimate() <= target);
  const calls = indexToolCalls(messages);
  const stale = staleReads(messages);
  let entries: Record<string, CompressionEntry> | undefined;
  let nextRecallId = state.nextRecallId;
  const elided: number[] = [];

  const elide = (index: number): void => {
    const original = messages[index] as ToolMessage;
    const id = original.toolCallId;
    const site = calls.get(id);
    const source = sourceOf(original, site?.call, memo);
    const existing = (entries ?? state.entries)[id];
    if (existing?.source === source && existing.level === 'elided') return;
    const recallId = existing?.source === source ? existing.recallId : nextRecallId;
    const path = site ? callPath(site.call) : undefined;
    const text = renderLevel('elided', {
      text: contentText(original.content),
      tokens: estimateOf(original),
      recallId,
      ...describe(site?.call, id, recallId, recall),
      count: () => 0,
      ...(stale.has(id) && path !== undefined ? { staleBecause: `outdated: ${path} was edited later` } : {}),
    }) as string;
    const message = renderedToolMessage(original, text);
    const newRaw = estimateOf(message);
    if (newRaw >= (raw[index] as number)) return;
    entries ??= { ...state.entries };
    entries[id] = { level: 'elided', text, recallId, source };
    if (recallId === nextRecallId) nextRecallId++;
    memo?.set(original, { source, text, message });
    rendered[index] = message;
    rawTotal += newRaw - (raw[index] as number);
    raw[index] = newRaw;
    elided.push(index);
  };

  const order = keepInUse(
    elisionOrder(messages, state),
    all ? 0 : protect,
    (index) => (raw[index] as number) * factor,
  );
  for (const index of order) {
    if (done()) break;
    elide(index);
  }
  if (elided.length === 0 || entries === undefined)
    return { messages: applyCompression({ messages, state, memo }), state, elided: [], estimate: estimate() };
  const ids = elided
    .slice()
    .sort((a, b) => a - b)
    .map((index) => (messages[index] as ToolMessage).toolCallId);
  return {
    messages: rendered,
    state: { ...state, entries, nextRecallId },
    elided: ids,
    estimate: estimate(),
    firstChanged: Math.min(...elided),
  };
}

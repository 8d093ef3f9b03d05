/**
 * @module
 * Progressive, sticky tool-output compression: under pressure, the oldest tool results are rendered
 * shorter (truncated → outline → elided), a level never goes back down, and the text each level
 * produced is stored so every later request sends the same bytes.
 */
import { contentText, type Message, splitTurns, type ToolMessage } from '../transcript/index.js';
import { applyCompression, type RenderMemo, renderedToolMessage, sourceOf } from './apply-compression.js';
import {
  type CompressedLevel,
  type CompressionEntry,
  type CompressionState,
  levelRank,
} from './compression-state.js';
import { renderLevel } from './render-level.js';
import { callPath, describeToolCall, indexToolCalls, staleReads } from './tool-activity.js';

/** Below this pressure (estimate / budget) nothing is compressed. */
export const COMPRESSION_START = 0.5;

/** The level each pressure band allows, from the lowest band up. */
export const COMPRESSION_BANDS: readonly { level: CompressedLevel; from: number }[] = [
  { level: 'truncated', from: 0.5 },
  { level: 'outline', from: 0.8 },
  { level: 'elided', from: 0.9 },
];

/**
 * How far below a band's start one pass takes the pressure. Compressing well below the threshold
 * means the next few requests need no new escalation, so their prefix (and the provider's cache of
 * it) stays the same.
 */
export const COMPRESSION_HYSTERESIS = 0.05;

/** Inputs of {@link compressToolOutputs}. */
export interface CompressToolOutputsOptions {
  /** The transcript as the caller holds it, results in full. */
  messages: readonly Message[];
  state: CompressionState;
  /** Prompt tokens allowed. */
  budget: number;
  /**
   * Estimated prompt tokens of the request as `state` renders it now, anchored on the provider's
   * count when possible; decides the pressure band.
   */
  estimate: number;
  /** Raw (uncalibrated) estimate of one message. */
  estimateOf: (message: Message) => number;
  /** Raw tokens of everything besides the messages (tool schemas, request overhead). */
  fixed?: number;
  /** The calibration factor raw estimates are multiplied by (default 1). */
  factor?: number;
  /** Tokens of a text, for the part of a result a truncation keeps. */
  count: (text: string) => number;
  /** `elided`: stub every eligible result, whatever the pressure (the recovery chain's forced prune). */
  force?: 'elided';
  memo?: RenderMemo;
}

/** What {@link compressToolOutputs} did. */
export interface CompressToolOutputsResult {
  /** The transcript as the new state renders it. */
  messages: readonly Message[];
  state: CompressionState;
  /** Tool-call ids whose level went up in this call, in transcript order. */
  escalated: string[];
  /**
   * Estimated prompt tokens after compression: the input `estimate` when nothing changed, else the
   * calibrated full estimate of the rendered transcript (a provider count no longer applies).
   */
  estimate: number;
}

/** The band a pressure falls in, if any. */
function bandFor(pressure: number): (typeof COMPRESSION_BANDS)[number] | undefined {
  let found: (typeof COMPRESSION_BANDS)[number] | undefined;
  for (const band of COMPRESSION_BANDS) if (pressure >= band.from) found = band;
  return found;
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

/**
 * Compresses tool results by pressure (`estimate / budget`): below 0.5 nothing; from 0.5 the oldest
 * results are truncated (head and tail lines), from 0.8 outlined (first and last line), from 0.9
 * elided (a one-line stub with a recall id), oldest first, each pass going a little below the band
 * it started in. Read results that a later edit of the same path made stale are elided first. The
 * newest tool run and the head are never touched. Levels only ever go up, and a stored text never
 * changes, so a result renders to the same bytes on every later request.
 *
 * When the escalations break the provider-count anchor and the calibrated full estimate comes out
 * over the budget, results are elided (oldest first) until it fits; if even that fails while the
 * uncompressed request did fit, nothing is changed: compression never makes a request fail that
 * would have been sent.
 *
 * @example
 * const result = compressToolOutputs({ messages, state, budget, estimate, estimateOf, count });
 * state = result.state; // sticky: pass it to every later call
 */
export function compressToolOutputs(options: CompressToolOutputsOptions): CompressToolOutputsResult {
  const {
    messages,
    state,
    budget,
    estimate,
    estimateOf,
    fixed = 0,
    factor = 1,
    count,
    force,
    memo,
  } = options;
  const unchanged = (): CompressToolOutputsResult => ({
    messages: applyCompression({ messages, state, memo }),
    state,
    escalated: [],
    estimate,
  });
  const { head } = splitTurns(messages);
  const protectedIds = newestToolRun(messages);
  const eligible: number[] = [];
  for (let index = head.end; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role === 'tool' && !protectedIds.has(message.toolCallId)) eligible.push(index);
  }
  if (eligible.length === 0 || budget <= 0) return unchanged();
  if (force === undefined && estimate / budget < COMPRESSION_START) return unchanged();

  const calls = indexToolCalls(messages);
  const rendered = applyCompression({ messages, state, memo }).slice();
  const raw = rendered.map((message) => estimateOf(message));
  let rawTotal = fixed + raw.reduce((sum, value) => sum + value, 0);
  let saved = 0;
  let entries: Record<string, CompressionEntry> | undefined;
  let nextRecallId = state.nextRecallId;
  const escalated = new Set<string>();
  const stale = staleReads(messages);

  const sourceAt = (index: number) => {
    const message = messages[index] as ToolMessage;
    return sourceOf(message, calls.get(message.toolCallId)?.call, memo);
  };
  // The entry stored for a result, when it was made from this very result (see `entrySource`).
  const entryAt = (index: number) => {
    const entry = (entries ?? state.entries)[(messages[index] as ToolMessage).toolCallId];
    return entry !== undefined && entry.source === sourceAt(index) ? entry : undefined;
  };
  // The pressure as the provider would count it: the anchored estimate minus what was taken out.
  const pressure = () => (estimate - saved * factor) / budget;
  const fullEstimate = () => Math.ceil(rawTotal * factor);

  const escalate = (index: number, level: CompressedLevel): boolean => {
    const original = messages[index] as ToolMessage;
    const id = original.toolCallId;
    const existing = entryAt(index);
    if (levelRank(existing?.level ?? 'full') >= levelRank(level)) return false;
    const site = calls.get(id);
    const path = site ? callPath(site.call) : undefined;
    const recallId = existing?.recallId ?? nextRecallId;
    const text = renderLevel(level, {
      text: contentText(original.content),
      tokens: estimateOf(original),
      recallId,
      description: site ? describeToolCall(site.call) : `tool result ${id}`,
      count,
      ...(stale.has(id) && level === 'elided' && path !== undefined
        ? { staleBecause: `outdated: ${path} was edited later` }
        : {}),
    });
    if (text === undefined) return false;
    const message = renderedToolMessage(original, text);
    const newRaw = estimateOf(message);
    if (newRaw >= (raw[index] as number)) return false;
    const source = sourceAt(index);
    entries ??= { ...state.entries };
    entries[id] = { level, text, recallId, source };
    if (existing === undefined) nextRecallId++;
    memo?.set(original, { source, text, message });
    rendered[index] = message;
    saved += (raw[index] as number) - newRaw;
    rawTotal += newRaw - (raw[index] as number);
    raw[index] = newRaw;
    escalated.add(id);
    return true;
  };
  const idOf = (index: number) => (messages[index] as ToolMessage).toolCallId;

  if (force === 'elided') {
    for (const index of eligible) escalate(index, 'elided');
  } else {
    for (const index of eligible) if (stale.has(idOf(index))) escalate(index, 'elided');
    // Passes continue, in whatever band the pressure lands, until it is below the lowest band or
    // nothing more can escalate: fitting the same request again then changes nothing (idempotent),
    // so a repeated history gets the same bytes.
    for (let band = bandFor(pressure()); band !== undefined; ) {
      const target = band.from - COMPRESSION_HYSTERESIS;
      const before = escalated.size;
      for (const index of eligible) {
        if (pressure() < target) break;
        escalate(index, band.level);
      }
      const next = bandFor(pressure());
      const progressed = escalated.size > before;
      band =
        next !== undefined && (progressed || levelRank(next.level) > levelRank(band.level))
          ? next
          : undefined;
    }
    if (escalated.size > 0 && fullEstimate() > budget) {
      for (const index of eligible) {
        if (fullEstimate() <= budget) break;
        escalate(index, 'elided');
      }
      // Compressing broke the anchor and still does not fit, while the request as it was did.
      if (fullEstimate() > budget && estimate <= budget) return unchanged();
    }
  }
  if (escalated.size === 0 || entries === undefined) return unchanged();
  const order = eligible.map(idOf).filter((id) => escalated.has(id));
  return {
    messages: rendered,
    state: { ...state, entries, nextRecallId },
    escalated: order,
    estimate: fullEstimate(),
  };
}

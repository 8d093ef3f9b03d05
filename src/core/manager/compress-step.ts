/**
 * @module
 * Step 5 of `fit`: the stored compression levels applied, and more escalated under pressure.
 */
import {
  applyCompression,
  COMPRESSION_START,
  type CompressionState,
  compressToolOutputs,
  type RenderMemo,
} from '../compress/index.js';
import {
  applyCalibration,
  type Calibration,
  type EstimateCache,
  type TokenBreakdown,
} from '../tokens/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';

/** A request's messages as rendered, with their estimate. */
export interface RenderedEstimate {
  messages: Message[];
  breakdown: TokenBreakdown;
  /** The provider-count anchor, when the rendered request extends the last counted one. */
  anchor: number | undefined;
  /** The anchored estimate, else the calibrated full one. */
  estimate: number;
}

/**
 * Renders `request` with `state` and, when `enabled` and the estimate is at least half the budget,
 * compresses more (`compressToolOutputs`). Returns the rendering, the new state and how many results
 * were escalated.
 */
export function compressStep({
  request,
  cache,
  budget,
  fixedRaw,
  calibration,
  state,
  memo,
  enabled,
  anchorFor,
}: {
  request: ChatRequest;
  cache: EstimateCache;
  budget: number;
  fixedRaw: number;
  calibration: Calibration;
  state: CompressionState;
  memo: RenderMemo;
  enabled: boolean;
  anchorFor: (request: ChatRequest) => number | undefined;
}): { current: RenderedEstimate; after: RenderedEstimate; state: CompressionState; escalated: number } {
  const measure = (messages: Message[]): RenderedEstimate => {
    const rendered = messages === request.messages ? request : { ...request, messages };
    const breakdown = cache.request(rendered);
    const anchor = anchorFor(rendered);
    return {
      messages,
      breakdown,
      anchor,
      estimate: anchor ?? applyCalibration(calibration, breakdown.total),
    };
  };
  const current = measure(applyCompression({ messages: request.messages, state, memo }) as Message[]);
  if (!enabled || current.estimate < COMPRESSION_START * budget)
    return { current, after: current, state, escalated: 0 };
  const result = compressToolOutputs({
    messages: request.messages,
    state,
    budget,
    estimate: current.estimate,
    estimateOf: (message) => cache.message(message).total,
    fixed: fixedRaw,
    factor: calibration.factor,
    count: (text) => cache.counter.count(text),
    memo,
  });
  if (result.escalated.length === 0) return { current, after: current, state, escalated: 0 };
  return {
    current,
    after: measure(result.messages as Message[]),
    state: result.state,
    escalated: result.escalated.length,
  };
}

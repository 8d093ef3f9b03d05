/**
 * @module
 * The summarizer: the model that writes compaction summaries, passed in as a function so the core
 * stays free of I/O.
 */
import type { ChatRequest } from '../transcript/index.js';

/** Token counts a summary request used, when the provider reported them. */
export interface SummaryUsage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * Sends one summary request and resolves with the reply's text. Reject with the provider's error as
 * it is (a `ProviderError`, an SDK error, a body): Spillway classifies it with `classifyOverflow` and
 * shrinks the request when it did not fit.
 *
 * @example
 * const summarize: Summarizer = async (request, { signal }) => {
 *   const response = await client.send(request, { signal });
 *   return { text: contentText(response.message.content), usage: response.usage };
 * };
 */
export type Summarizer = (
  request: ChatRequest,
  options: { signal?: AbortSignal },
) => Promise<{ text: string; usage?: SummaryUsage }>;

/** The default output cap of a summary request (`summary_max_tokens`). */
export const DEFAULT_SUMMARY_MAX_TOKENS = 16_384;

/**
 * The output cap of a summary request: `summaryMaxTokens`, never more than half the window (the
 * prompt needs the other half), never less than 256.
 */
export function summaryOutputCap({
  window,
  summaryMaxTokens = DEFAULT_SUMMARY_MAX_TOKENS,
}: {
  window: number;
  summaryMaxTokens?: number;
}): number {
  return Math.max(256, Math.min(summaryMaxTokens, Math.floor(window / 2)));
}

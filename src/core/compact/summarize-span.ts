/**
 * @module
 * Summarizing a span with the model: in one request when it fits, else rolling over chunks that end
 * at pairing-safe boundaries, each merged with the running summary; a request that overflows is
 * shrunk by the overshoot its error reports.
 */
import {
  classifyOverflow,
  OVERFLOW_KINDS,
  type OverflowInfo,
  windowFromOverflow,
} from '../overflow/index.js';
import type { ChatRequest, Message, RequestFormat } from '../transcript/index.js';
import { cutMiddle, SUMMARY_INPUT_LEVELS, serializeTranscript } from './serialize-transcript.js';
import { type Summarizer, type SummaryUsage, summaryOutputCap } from './summarizer.js';
import { buildSummaryRequest } from './summary-prompt.js';

/** At most this many chunks in one rolling summary. */
export const MAX_SUMMARY_CHUNKS = 8;
/** A summary gives up after this many failed requests in a row. */
export const MAX_SUMMARY_FAILURES = 6;
/** Share of a shrunk request kept below what the error said fits. */
export const SHRINK_MARGIN = 0.9;
/** A chunk with less room than this for the conversation is not worth sending. */
const MIN_CHUNK_TOKENS = 64;

/** Inputs of {@link summarizeSpan}. */
export interface SummarizeSpanOptions {
  messages: readonly Message[];
  /** Pairing-safe units of the span, as `[start, end)` indices into `messages`, oldest first. */
  units: ReadonlyArray<readonly [number, number]>;
  summarize: Summarizer;
  signal?: AbortSignal;
  window: number;
  budget: number;
  summaryMaxTokens?: number;
  model?: string;
  format?: RequestFormat;
  /** Calibrated prompt estimate of a summary request. */
  estimateRequest: (request: ChatRequest) => number;
}

/** What {@link summarizeSpan} produced. */
export interface SummarizeSpanResult {
  /** The summary, when at least the first chunk was summarized. */
  summary?: string;
  /** Units summarized: `units[0, summarized)`. The rest stay verbatim. */
  summarized: number;
  mode: 'single' | 'rolling';
  requests: number;
  chunks: number;
  usage: SummaryUsage;
  /** A smaller window an overflow error stated. */
  learnedWindow?: number;
  steps: string[];
  /** The last error, when the summary failed. */
  error?: unknown;
  /** True when the summarizer failed with an error that is not an overflow. */
  failed?: boolean;
}

/**
 * The prompt size to retry with after an overflow: what was sent minus the overshoot the error states
 * (`needs - allows`), times {@link SHRINK_MARGIN}; half of it when the error states no figures.
 */
export function shrinkTarget(sent: number, info: OverflowInfo): number {
  const needs =
    info.total ??
    (info.input === undefined ? undefined : info.input + (info.kind === 'budget' ? (info.output ?? 0) : 0));
  const allows = info.window;
  const target =
    needs !== undefined && allows !== undefined && needs > allows
      ? Math.floor((sent - (needs - allows)) * SHRINK_MARGIN)
      : Math.floor(sent / 2);
  return Math.min(target, Math.floor(sent * SHRINK_MARGIN));
}

/**
 * Summarizes `units` of `messages`. Plans against `min(budget, window - summaryCap)` prompt tokens per
 * request: when the whole span fits one request it is sent at once (and, on overflow, shrunk, the
 * cut units left verbatim after the summary); otherwise it rolls over at most
 * {@link MAX_SUMMARY_CHUNKS} chunks, each request holding the running summary and the next chunk.
 * Stops after {@link MAX_SUMMARY_FAILURES} failures in a row; an error that is not an overflow stops
 * at once (the client already retried what was transient). Aborts rethrow.
 */
export async function summarizeSpan(options: SummarizeSpanOptions): Promise<SummarizeSpanResult> {
  const { messages, units, summarize, signal, budget, model, format, estimateRequest } = options;
  let window = options.window;
  let cap = summaryOutputCap({ window, summaryMaxTokens: options.summaryMaxTokens });
  let bound = Math.min(budget, window - cap);
  const steps: string[] = [];
  const usage: SummaryUsage = { promptTokens: 0, completionTokens: 0 };
  const request = (conversation: string, previousSummary?: string, part?: number) =>
    buildSummaryRequest({
      conversation,
      ...(previousSummary === undefined ? {} : { previousSummary }),
      ...(part === undefined ? {} : { part: { index: part } }),
      ...(model === undefined ? {} : { model }),
      ...(format === undefined ? {} : { format }),
      maxTokens: cap,
    });
  const emptyCost = estimateRequest(request(''));
  const textCost = (text: string) => Math.max(0, estimateRequest(request(text)) - emptyCost);

  // Serialize at the loosest level whose chunks number at most MAX_SUMMARY_CHUNKS.
  let texts: string[] = [];
  let costs: number[] = [];
  let mode: 'single' | 'rolling' = 'single';
  for (const [level, limits] of SUMMARY_INPUT_LEVELS.entries()) {
    texts = units.map(([start, end]) => serializeTranscript(messages.slice(start, end), { limits }));
    costs = texts.map((text) => textCost(`${text}\n\n`));
    const total = costs.reduce((sum, cost) => sum + cost, 0);
    const room = bound - emptyCost;
    if (total <= room) {
      mode = 'single';
      break;
    }
    mode = 'rolling';
    const perChunk = room - Math.min(cap, Math.floor(bound / 4));
    if (perChunk > 0 && Math.ceil(total / perChunk) <= MAX_SUMMARY_CHUNKS) break;
    if (level < SUMMARY_INPUT_LEVELS.length - 1)
      steps.push(`summary input too long at level ${level}; serializing tighter`);
  }
  if (mode === 'rolling') steps.push('summary input exceeds one request: rolling summary');

  let next = 0;
  let running: string | undefined;
  let chunks = 0;
  let failures = 0;
  let requests = 0;
  let limit = Number.POSITIVE_INFINITY;
  let learnedWindow: number | undefined;
  let lastError: unknown;
  while (next < units.length && chunks < MAX_SUMMARY_CHUNKS && failures < MAX_SUMMARY_FAILURES) {
    const base = estimateRequest(request('', running, mode === 'rolling' ? chunks + 1 : undefined));
    const room = Math.min(bound, limit) - base;
    if (room < MIN_CHUNK_TOKENS) {
      steps.push(`no room left for the conversation in a summary request (${room} tokens)`);
      break;
    }
    let end = next;
    let used = 0;
    while (end < units.length && used + (costs[end] as number) <= room) used += costs[end++] as number;
    let conversation = texts.slice(next, end).join('\n\n');
    if (end === next) {
      // One unit larger than a whole request: send its start and end.
      const text = texts[next] as string;
      const cost = Math.max(1, costs[next] as number);
      let chars = Math.floor((text.length * room) / cost);
      conversation = cutMiddle(text, chars);
      while (chars > 200 && textCost(conversation) > room) {
        chars = Math.floor(chars * 0.8);
        conversation = cutMiddle(text, chars);
      }
      end = next + 1;
    }
    const summaryRequest = request(conversation, running, mode === 'rolling' ? chunks + 1 : undefined);
    const sent = estimateRequest(summaryRequest);
    requests++;
    try {
      const reply = await summarize(summaryRequest, signal === undefined ? {} : { signal });
      if (reply.usage) {
        usage.promptTokens += reply.usage.promptTokens;
        usage.completionTokens += reply.usage.completionTokens;
      }
      const text = reply.text.trim();
      if (text === '') {
        failures++;
        steps.push(`summary request ${requests} returned no text`);
        continue;
      }
      running = text;
      chunks++;
      failures = 0;
      steps.push(`summarized units ${next + 1}-${end} of ${units.length} (${sent} tokens sent)`);
      next = end;
      if (mode === 'single') break;
    } catch (error) {
      if (signal?.aborted) throw error;
      lastError = error;
      failures++;
      // A provider client's error carries the classification of its answer; classify only what does not.
      const info = carriedOverflow(error) ?? classifyOverflow({ error });
      if (info.kind === 'none') {
        steps.push(`summary request ${requests} failed: ${(error as Error)?.message ?? String(error)}`);
        return {
          summarized: next,
          mode,
          requests,
          chunks,
          usage,
          steps,
          error,
          failed: true,
          ...(running === undefined ? {} : { summary: running }),
          ...(learnedWindow === undefined ? {} : { learnedWindow }),
        };
      }
      const stated = windowFromOverflow(info);
      if (stated !== undefined && stated < window) {
        window = stated;
        learnedWindow = stated;
        cap = Math.min(cap, summaryOutputCap({ window, summaryMaxTokens: options.summaryMaxTokens }));
        bound = Math.min(budget, window - cap);
      }
      if (info.kind === 'output_cap') {
        cap = Math.max(256, Math.min(cap - 1, info.outputLimit ?? Math.floor(cap / 2)));
        bound = Math.min(budget, window - cap);
        steps.push(`summary request ${requests} asked for too many output tokens: cap lowered to ${cap}`);
        continue;
      }
      limit = Math.min(limit, shrinkTarget(sent, info));
      steps.push(
        `summary request ${requests} overflowed (${info.kind}, ${sent} tokens sent): retrying with at most ${Math.min(limit, bound)}`,
      );
    }
  }
  return {
    summarized: running === undefined ? 0 : next,
    mode,
    requests,
    chunks,
    usage,
    steps,
    ...(running === undefined ? {} : { summary: running }),
    ...(learnedWindow === undefined ? {} : { learnedWindow }),
    ...(running === undefined && lastError !== undefined ? { error: lastError } : {}),
  };
}

/** The classification a provider client's error already carries (`ProviderError.overflow`), if any. */
function carriedOverflow(error: unknown): OverflowInfo | undefined {
  if (typeof error !== 'object' || error === null || !('overflow' in error)) return undefined;
  const overflow = (error as { overflow?: unknown }).overflow;
  return typeof overflow === 'object' &&
    overflow !== null &&
    OVERFLOW_KINDS.includes((overflow as OverflowInfo).kind)
    ? (overflow as OverflowInfo)
    : undefined;
}

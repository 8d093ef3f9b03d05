/**
 * @module
 * The figures of one replay run: what was sent over the window, what was refused although it fit, how
 * much of the budget cut requests use, how often the prefix breaks, and the prompt tokens a provider's
 * prefix cache would not have served.
 */
import { type ChatRequest, type Message, toOpenAIChat } from '../../../src/core/index.js';
import { countRenderedTokens, getTokenizer, IM_START } from '../../../src/emulator/index.js';
import { median } from '../median.js';
import { countRequest } from './replay-provider.js';
import type { ReplayRun, ReplaySend } from './replay-transcript.js';

/** Price of a cached prompt token relative to an uncached one (OpenAI and Anthropic cache reads: 10%). */
export const CACHED_INPUT_PRICE = 0.1;

/** The figures of one run. */
export interface ReplayMetrics {
  transcript: string;
  window: number;
  steps: number;
  completed: number;
  sends: number;
  /** Sends the provider rejected, by what they were rejected for. */
  rejected: { context: number; budget: number; output_cap: number };
  /** Sends whose prompt alone was over the window on the provider's count. */
  overWindow: number;
  /** The longest run of consecutive sends over the window. */
  overWindowRun: number;
  /** Steps the driver ended with `context_truncated`. */
  refusals: number;
  /** Of those, the ones whose head and newest turn alone fit the window on the provider's count. */
  refusalsThatFit: number;
  /** Steps that failed for another reason. */
  otherFailures: number;
  /** Accepted sends the driver changed (pruned, compressed, recovered) after the first reply. */
  cutRequests: number;
  /** Median and lowest of prompt tokens / budget over those; null when there were none. */
  cutUtilization: { median: number; min: number } | null;
  /** Prefix breaks: consecutive sends where the later does not start with the earlier's messages. */
  cuts: number;
  cutsPerSend: number;
  /** Share of consecutive sends whose messages start with the previous send's, byte for byte. */
  prefixRetention: number;
  /** Prompt tokens per completed step that the previous accepted request's prefix does not cover. */
  uncachedPerStep: number;
  /** Uncached plus cached at {@link CACHED_INPUT_PRICE}, per completed step. */
  pricedPerStep: number;
  /** Accepted sends whose recorded reply is longer than the `max_tokens` they asked for. */
  repliesOverMaxTokens: number;
  /** Tokens the caller's history grows by per step, on the provider's count (mean). */
  appendPerStep: number;
  /** The prompt budget of the sends (median; it moves with the `max_tokens` clamp). */
  budget: number;
  /**
   * The most `prefixRetention` any fit could reach over these sends: one cut frees at most a budget,
   * so a history of H tokens needs at least ceil((H - budget) / budget) of them.
   */
  prefixBound: number;
}

const wireCache = new WeakMap<Message, string>();

function wireOf(message: Message): string {
  let wire = wireCache.get(message);
  if (wire === undefined) {
    wire = JSON.stringify(
      toOpenAIChat({ format: 'openai', messages: [message], tools: [], extra: {} }).messages[0],
    );
    wireCache.set(message, wire);
  }
  return wire;
}

/** Messages `later` shares with `earlier` from the start, byte for byte on the wire. */
export function commonPrefix(earlier: readonly Message[], later: readonly Message[]): number {
  const length = Math.min(earlier.length, later.length);
  for (let index = 0; index < length; index++) {
    const a = earlier[index] as Message;
    const b = later[index] as Message;
    if (a !== b && wireOf(a) !== wireOf(b)) return index;
  }
  return length;
}

const GENERATION_PROMPT = `${IM_START}assistant\n`;

/** Tokens of the first `count` messages of a request as the provider renders them (the cacheable prefix). */
function prefixTokens(request: ChatRequest, count: number): number {
  if (count === 0) return 0;
  const prefix = countRequest({
    ...request,
    messages: request.messages.slice(0, count),
    maxTokens: undefined,
  });
  return prefix - countRenderedTokens(GENERATION_PROMPT, getTokenizer('o200k'));
}

function cacheFigures(sends: ReplaySend[]): { uncached: number; cached: number } {
  let previous: ReplaySend | undefined;
  let uncached = 0;
  let cached = 0;
  for (const send of sends) {
    if (!send.accepted) continue;
    const shared = previous ? commonPrefix(previous.request.messages, send.request.messages) : 0;
    const hit = Math.min(send.realTokens, Math.max(0, prefixTokens(send.request, shared)));
    cached += hit;
    uncached += send.realTokens - hit;
    previous = send;
  }
  return { uncached, cached };
}

function longestRun(sends: ReplaySend[], window: number): number {
  let longest = 0;
  let current = 0;
  for (const send of sends) {
    current = send.realTokens > window ? current + 1 : 0;
    longest = Math.max(longest, current);
  }
  return longest;
}

/** Mean growth of the caller's history per step, and the fewest cuts any fit could make of it. */
function historyFigures(sends: ReplaySend[], budget: number) {
  const callers = new Map<number, ReplaySend['caller']>();
  for (const send of sends) callers.set(send.step, send.caller);
  const ordered = [...callers.entries()].sort(([a], [b]) => a - b).map(([, caller]) => caller);
  const first = ordered[0];
  const last = ordered.at(-1);
  if (!first || !last || ordered.length < 2 || budget <= 0) return { appendPerStep: 0, prefixBound: 1 };
  const [start, end] = [countRequest(first), countRequest(last)];
  const fewestCuts = Math.max(0, Math.ceil((end - budget) / budget));
  return {
    appendPerStep: (end - start) / (ordered.length - 1),
    prefixBound: Math.max(0, 1 - fewestCuts / Math.max(1, sends.length - 1)),
  };
}

/**
 * Computes the figures of a run.
 *
 * @example
 * const metrics = replayMetrics(await replayTranscript({ transcript, window: 8_192 }));
 * metrics.overWindowRun <= 1; // nothing sent over the window twice in a row
 */
export function replayMetrics(run: ReplayRun): ReplayMetrics {
  const { sends, window } = run;
  const rejected = { context: 0, budget: 0, output_cap: 0 };
  for (const send of sends) if (send.rejected) rejected[send.rejected]++;
  const refused = run.steps.filter((step) => step.outcome === 'context_truncated');
  const completed = run.steps.filter((step) => step.outcome === 'answered').length;
  const cut = sends.filter((send) => send.accepted && send.changed && send.afterResponse);
  const ratios = cut.map((send) => send.realTokens / send.fit.budget);
  let cuts = 0;
  for (let index = 1; index < sends.length; index++) {
    const earlier = (sends[index - 1] as ReplaySend).request.messages;
    if (commonPrefix(earlier, (sends[index] as ReplaySend).request.messages) < earlier.length) cuts++;
  }
  const pairs = Math.max(1, sends.length - 1);
  const { uncached, cached } = cacheFigures(sends);
  const budget = sends.length === 0 ? 0 : median(sends.map((send) => send.fit.budget));
  return {
    transcript: run.transcript,
    window,
    steps: run.steps.length,
    completed,
    sends: sends.length,
    rejected,
    overWindow: sends.filter((send) => send.realTokens > window).length,
    overWindowRun: longestRun(sends, window),
    refusals: refused.length,
    refusalsThatFit: refused.filter((step) => (step.smallestTokens ?? Number.POSITIVE_INFINITY) <= window)
      .length,
    otherFailures: run.steps.length - completed - refused.length,
    cutRequests: cut.length,
    cutUtilization: ratios.length === 0 ? null : { median: median(ratios), min: Math.min(...ratios) },
    cuts,
    cutsPerSend: sends.length === 0 ? 0 : cuts / sends.length,
    prefixRetention: sends.length < 2 ? 1 : (pairs - cuts) / pairs,
    uncachedPerStep: completed === 0 ? 0 : uncached / completed,
    pricedPerStep: completed === 0 ? 0 : (uncached + CACHED_INPUT_PRICE * cached) / completed,
    repliesOverMaxTokens: sends.filter(
      (send) =>
        send.accepted &&
        send.request.maxTokens !== undefined &&
        (send.replyTokens ?? 0) > send.request.maxTokens,
    ).length,
    budget,
    ...historyFigures(sends, budget),
  };
}

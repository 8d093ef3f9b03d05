/**
 * The figures of one session, from the requests the server recorded.
 *
 * - A request is **processed** when the server answered it with usage; **rejected** when it answered
 *   an error; a processed request is **silently truncated** when the server reported fewer prompt
 *   tokens than the request holds (Ollama keeps the window's worth and says nothing): the model
 *   answered a prompt that lost its start, so that request is a failure, never window use. Its reply
 *   is **used** unless the next ordinary request sends the same newest message again (the turn was
 *   resent, fitted to the window the report showed, and the reply discarded).
 * - A **completed model turn** is a processed ordinary request (not a summary call), not truncated,
 *   whose reply moved the scripted agent on (a reply later in the script than any before it): a
 *   request that lost so much history that the agent repeats an earlier step completes nothing.
 *   Every processed request costs its prompt tokens; a request's **cached** tokens are
 *   those of its system prompt, tools and leading messages equal byte for byte to the previous
 *   processed request's (an ordinary request is compared with the previous ordinary one), which a
 *   provider's prefix cache serves; the rest is **uncached**. The cost of requests that completed no
 *   turn (summary calls, truncated ones) goes to the next completed turn.
 * - A **cut** is a processed ordinary request that does not start with the previous one's messages.
 */
import type { EmulatorRequestRecord } from '../../src/emulator/index.js';
import { isSummaryBody } from './baselines/summary-request.js';

/** Price of a cached prompt token against an uncached one (OpenAI and Anthropic cache reads: 10%). */
export const CACHED_INPUT_PRICE = 0.1;

/** Tokens a provider would serve from its cache: `body` up to its first `messages` messages. */
export type PrefixTokens = (body: unknown, messages: number) => number;

/** One completed model turn and what it cost. */
export interface TurnFigures {
  /** Prompt tokens, uncached and cached, of this turn's request and of the requests before it that completed none. */
  uncached: number;
  cached: number;
  /** Of those, the summary calls'. */
  summaryUncached: number;
  summaryCached: number;
  /** Whether the request starts with the previous ordinary request's messages (undefined for the first). */
  keptPrefix: boolean | undefined;
  /** Prompt tokens / the window the server enforces. */
  windowShare: number;
}

export interface SessionFigures {
  scenario: string;
  strategy: string;
  /** The loop finished every scripted turn and no reply it used came from a truncated prompt. */
  completed: boolean;
  turns: TurnFigures[];
  ordinaryRequests: number;
  summaryCalls: number;
  rejected: number;
  silentlyTruncated: number;
  /** Of those, the ones whose reply the agent went on with (not resent). */
  truncatedUsed: number;
  /** Cost of processed requests after the last completed turn. */
  trailing: { uncached: number; cached: number };
}

interface Body {
  messages: unknown[];
  rest: string;
}

function bodyOf(record: EmulatorRequestRecord): Body {
  const body = (record.body ?? {}) as { messages?: unknown[]; tools?: unknown; system?: unknown };
  return { messages: body.messages ?? [], rest: JSON.stringify([body.tools ?? [], body.system ?? null]) };
}

function lastMessageOf(record: EmulatorRequestRecord): string {
  return JSON.stringify(bodyOf(record).messages.at(-1) ?? null);
}

/** Leading messages `later` shares with `earlier`, byte for byte; -1 when tools or system differ. */
export function sharedMessages(earlier: Body, later: Body): number {
  if (earlier.rest !== later.rest) return -1;
  const length = Math.min(earlier.messages.length, later.messages.length);
  for (let index = 0; index < length; index++)
    if (JSON.stringify(earlier.messages[index]) !== JSON.stringify(later.messages[index])) return index;
  return length;
}

/** Figures of one session's recorded requests (chat requests, in the order the server saw them). */
export function sessionFigures({
  scenario,
  strategy,
  loopCompleted,
  requests,
  enforced,
  prefixTokens,
}: {
  scenario: string;
  strategy: string;
  loopCompleted: boolean;
  requests: readonly EmulatorRequestRecord[];
  enforced: number;
  prefixTokens: PrefixTokens;
}): SessionFigures {
  const turns: TurnFigures[] = [];
  const pending = { uncached: 0, cached: 0, summaryUncached: 0, summaryCached: 0 };
  let previous: { ordinary?: EmulatorRequestRecord; any?: EmulatorRequestRecord } = {};
  let furthest = -1;
  let counts = { ordinary: 0, summary: 0, rejected: 0, truncated: 0, truncatedUsed: 0 };
  let truncatedLast: string | undefined;
  for (const record of requests) {
    const summary = isSummaryBody(record.body);
    if (!summary && truncatedLast !== undefined) {
      if (lastMessageOf(record) !== truncatedLast) counts.truncatedUsed++;
      truncatedLast = undefined;
    }
    counts = {
      ...counts,
      ordinary: counts.ordinary + (summary ? 0 : 1),
      summary: counts.summary + (summary ? 1 : 0),
    };
    if (record.reportedPromptTokens === undefined) {
      if (record.status >= 400) counts.rejected++;
      continue;
    }
    const tokens = record.reportedPromptTokens;
    const truncated = tokens < (record.promptTokens ?? tokens);
    const against = summary ? previous.any : previous.ordinary;
    const shared = against ? sharedMessages(bodyOf(against), bodyOf(record)) : -1;
    const cached = truncated || shared < 0 ? 0 : Math.min(tokens, prefixTokens(record.body, shared));
    pending.uncached += tokens - cached;
    pending.cached += cached;
    if (summary) {
      pending.summaryUncached += tokens - cached;
      pending.summaryCached += cached;
    } else if (truncated) {
      counts.truncated++;
      truncatedLast = lastMessageOf(record);
    } else if ((record.replyIndex ?? furthest + 1) > furthest) {
      furthest = record.replyIndex ?? furthest + 1;
      const before = previous.ordinary ? bodyOf(previous.ordinary).messages.length : undefined;
      turns.push({
        ...pending,
        keptPrefix: before === undefined ? undefined : shared >= before,
        windowShare: tokens / enforced,
      });
      Object.assign(pending, { uncached: 0, cached: 0, summaryUncached: 0, summaryCached: 0 });
    }
    previous = summary ? { ...previous, any: record } : { ordinary: record, any: record };
  }
  if (truncatedLast !== undefined) counts.truncatedUsed++;
  return {
    scenario,
    strategy,
    completed: loopCompleted && counts.truncatedUsed === 0,
    turns,
    ordinaryRequests: counts.ordinary,
    summaryCalls: counts.summary,
    rejected: counts.rejected,
    silentlyTruncated: counts.truncated,
    truncatedUsed: counts.truncatedUsed,
    trailing: { uncached: pending.uncached, cached: pending.cached },
  };
}

/** Cost in uncached-token equivalents: uncached plus cached at {@link CACHED_INPUT_PRICE}. */
export function priced({ uncached, cached }: { uncached: number; cached: number }): number {
  return uncached + CACHED_INPUT_PRICE * cached;
}

/** Consecutive-request pairs among `turns` and how many of them kept the prefix. */
export function prefixPairs(turns: readonly TurnFigures[]): { pairs: number; kept: number } {
  let pairs = 0;
  let kept = 0;
  for (const turn of turns) {
    if (turn.keptPrefix === undefined) continue;
    pairs++;
    if (turn.keptPrefix) kept++;
  }
  return { pairs, kept };
}

/** Window share of the turns from the first cut on (before it the history only grows: the ramp). */
export function windowUseAfterFirstCut(turns: readonly TurnFigures[]): number[] {
  const first = turns.findIndex((turn) => turn.keptPrefix === false);
  return first < 0 ? [] : turns.slice(first).map((turn) => turn.windowShare);
}

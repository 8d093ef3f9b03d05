/**
 * @module
 * The chat's text for people: the context meter, `/context`, `/sessions` and `/help`.
 */
import { formatTokens } from '../core/index.js';
import type { SessionRecord } from '../store/index.js';
import type { ContextStatus } from './context-status.js';

export const count = (value: number): string => value.toLocaleString('en-US');

/**
 * The meter shown after each turn: the same figure `/context` splits, `≈` when it is an estimate,
 * and the session's cost when prices are configured.
 *
 * @example
 * formatMeter({ status }); // 'context 11k / 16k (68%) · budget 7.5k · schemas 640'
 */
export function formatMeter({ status, cost }: { status: ContextStatus; cost?: number }): string {
  const share = status.window > 0 ? Math.round((100 * status.tokens) / status.window) : 0;
  const approximate = status.basis === 'provider' ? '' : '≈';
  const parts = [
    `context ${approximate}${formatTokens(status.tokens)} / ${formatTokens(status.window)} (${share}%)`,
    `budget ${formatTokens(status.budget)}`,
    `schemas ${formatTokens(status.parts.schemas.tokens)}`,
  ];
  if (status.leftOut.turns > 0) parts.push(`${status.leftOut.turns} older turns not sent`);
  if (cost !== undefined) parts.push(`session ${formatDollars(cost)}`);
  return parts.join(' · ');
}

/** Dollars with four decimals under a dollar (a turn costs fractions of a cent). */
export function formatDollars(value: number): string {
  return `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
}

/** `/context`: the meter's figure, and what it is made of. */
export function formatContext(status: ContextStatus): string {
  const { parts } = status;
  const share = status.window > 0 ? Math.round((100 * status.tokens) / status.window) : 0;
  const sources = parts.schemas.sources.map((source) => `${source.source} ${formatTokens(source.tokens)}`);
  const rows: Array<[string, number]> = [
    [`head (system prompt and opening messages, ${parts.head.count} messages)`, parts.head.tokens],
    [`turns (${parts.turns.count}; text and tool calls)`, parts.turns.tokens],
    [`tool outputs (${parts.toolOutputs.count})`, parts.toolOutputs.tokens],
    [
      `tool schemas (${parts.schemas.count} tools${sources.length > 0 ? `: ${sources.join(', ')}` : ''})`,
      parts.schemas.tokens,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const counted = status.reported
    ? `the provider's count of the last request, ${count(status.reported.prompt)} tokens, and of its ${count(status.reported.reply)}-token reply`
    : '';
  const basis =
    status.basis === 'provider'
      ? counted
      : status.basis === 'anchored'
        ? `${counted}, and ≈${count(status.added ?? 0)} tokens estimated for what came after`
        : "estimated, calibrated on the provider's counts so far";
  const lines = [
    `${status.basis === 'provider' ? '' : '≈'}${count(status.tokens)} of ${count(status.window)} tokens in the window (${share}%): ${basis}`,
    ...rows.map(([label, tokens]) => `  ${label.padEnd(width)}  ${count(tokens).padStart(8)}`),
    `the parts are the estimator's split of what was sent, scaled to the total · prompt budget ${count(status.budget)}`,
  ];
  if (status.leftOut.turns > 0)
    lines.push(
      `${status.leftOut.turns} older turn${status.leftOut.turns === 1 ? '' : 's'} stay in the session but were left out of the last request to fit`,
    );
  return lines.join('\n');
}

/** `/sessions`: the newest sessions, the current one marked. */
export function formatSessions(sessions: readonly SessionRecord[], current: string | undefined): string {
  if (sessions.length === 0) return 'no sessions yet';
  return sessions
    .map(
      (session) =>
        `${session.id === current ? '*' : ' '} ${session.id.slice(0, 8)}  ${session.updatedAt.slice(0, 16).replace('T', ' ')}  ${String(session.messageCount).padStart(4)} messages  ${session.model ?? ''}  ${session.title ?? ''}`,
    )
    .join('\n');
}

/** `/help`. */
export const CHAT_HELP = `/compact        compact the history now (a summary, or a digest without a model call)
/context        how full the window is, and with what: head, turns, tool outputs, tool schemas
/limits         every figure of the budget: window, output cap, reserve, safety margin, budget, schemas
/cost           the session's requests, prompt tokens (cached and not), reply tokens and cost
/model [ID]     the model in use; with an id, switch to it from the next prompt on
/sessions       the newest sessions
/resume ID      continue a session (an id prefix is enough)
/clear          start a new session (the current one stays saved)
/help           this list
/quit           leave (Ctrl+C twice at the prompt, or Ctrl+D, too)
A line ending in \\ continues on the next; pasted lines stay one message.
Ctrl+C during a reply cancels it; lines typed meanwhile run after it.`;

/**
 * @module
 * The chat's text for people: the context meter, `/context`, `/limits`, `/sessions` and `/help`.
 */
import { formatTokens } from '../core/index.js';
import type { ResolvedLimits } from '../models/index.js';
import type { SessionRecord } from '../store/index.js';
import type { ContextMeter } from './chat-session.js';
import type { ContextBreakdown } from './context-breakdown.js';

const count = (value: number): string => value.toLocaleString('en-US');

/**
 * The meter shown after each turn.
 *
 * @example
 * formatMeter({ tokens: 10_912, reported: true, window: 16_000, budget: 7_520, schemas: 640 });
 * // 'context 11k / 16k (68%) · budget 7.5k · schemas 640'
 */
export function formatMeter(meter: ContextMeter): string {
  const share = meter.window > 0 ? Math.round((100 * meter.tokens) / meter.window) : 0;
  return `context ${meter.reported ? '' : '≈'}${formatTokens(meter.tokens)} / ${formatTokens(meter.window)} (${share}%) · budget ${formatTokens(meter.budget)} · schemas ${formatTokens(meter.schemas)}`;
}

/** `/context`: where the tokens go. */
export function formatContext(breakdown: ContextBreakdown, meter: ContextMeter): string {
  const rows: Array<[string, number]> = [
    [`head (system prompt and first message, ${breakdown.head.messages} messages)`, breakdown.head.tokens],
    [`turns (${breakdown.turns.count}; text and tool calls)`, breakdown.turns.tokens],
    [`tool outputs (${breakdown.toolOutputs.count})`, breakdown.toolOutputs.tokens],
    [
      `tool schemas (${breakdown.schemas.tools} tools${breakdown.schemas.sources.length > 0 ? `: ${breakdown.schemas.sources.map((source) => `${source.source} ${formatTokens(source.tokens)}`).join(', ')}` : ''})`,
      breakdown.schemas.tokens,
    ],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, tokens]) => `  ${label.padEnd(width)}  ${count(tokens).padStart(8)}`);
  const last =
    meter.tokens > 0 ? `; the last request: ${meter.reported ? '' : '≈'}${count(meter.tokens)}` : '';
  return [
    `estimated ${count(breakdown.total)} tokens of history and schemas in a ${count(meter.window)}-token window (prompt budget ${count(meter.budget)}${last})`,
    ...lines,
  ].join('\n');
}

function sourceText(source: string): string {
  if (source === 'config') return 'config';
  if (source === 'learned') return 'learned from an earlier overflow error';
  if (source === 'catalog') return 'model catalog';
  if (source === 'fallback') return 'fallback (nothing states it)';
  if (source.startsWith('discovery:')) return `discovered at ${source.slice('discovery:'.length)}`;
  return source;
}

/** `/limits`: the window, cap, reserve and budget in force, and where each came from. */
export function formatLimits({
  limits,
  window,
  budget,
  reserve,
}: {
  limits: ResolvedLimits;
  /** The window in force now (a window the session learned from an overflow wins). */
  window: number;
  budget: number;
  reserve: { tokens?: number; reason: 'config' | 'output cap' | 'default share' };
}): string {
  const windowSource =
    window !== limits.contextLength
      ? `learned from an overflow error (${sourceText(limits.source.contextLength)} said ${count(limits.contextLength)})`
      : sourceText(limits.source.contextLength);
  const reserveTokens = reserve.tokens ?? limits.outputCap;
  const reserveText =
    reserve.reason === 'config'
      ? 'config'
      : reserve.reason === 'output cap'
        ? 'the output cap'
        : limits.outputCap !== undefined
          ? 'the default share: the output cap is more than a quarter of the window'
          : 'the default share of the window';
  return [
    `model       ${limits.model}`,
    `window      ${count(window).padStart(9)}  ${windowSource}`,
    `output cap  ${(limits.outputCap === undefined ? 'none' : count(limits.outputCap)).padStart(9)}  ${sourceText(limits.source.outputCap)}`,
    `reserve     ${(reserveTokens === undefined ? 'default' : count(reserveTokens)).padStart(9)}  ${reserveText}`,
    `budget      ${count(budget).padStart(9)}  window − reserve − safety margin`,
  ].join('\n');
}

/** `/sessions`: the newest sessions, the current one marked. */
export function formatSessions(sessions: readonly SessionRecord[], current: string | undefined): string {
  if (sessions.length === 0) return 'no sessions yet';
  return sessions
    .map(
      (session) =>
        `${session.id === current ? '*' : ' '} ${session.id.slice(0, 8)}  ${session.updatedAt.slice(0, 16).replace('T', ' ')}  ${String(session.messageCount).padStart(4)} messages  ${session.title ?? ''}`,
    )
    .join('\n');
}

/** `/help`. */
export const CHAT_HELP = `/compact        compact the history now (a summary, or a digest without a model call)
/context        where the context goes: head, turns, tool outputs, tool schemas
/limits         the window, output cap, reserve and budget in force, and where each came from
/sessions       the newest sessions
/resume ID      continue a session (an id prefix is enough)
/clear          start a new session (the current one stays saved)
/help           this list
/quit           leave (Ctrl+C twice at the prompt, or Ctrl+D, too)
Ctrl+C during a reply cancels it.`;

import type { Budget } from '../core/index.js';
import { CLAMP_MARGIN, DEFAULT_RESERVE, type ReserveReason } from '../core/index.js';
import { describeLimitSource, type ResolvedLimits } from '../models/index.js';
import type { ContextStatus } from './context-status.js';
import { count } from './format-chat.js';

function reserveText(reason: ReserveReason, figures: Budget): string {
  if (reason === 'config') return 'config (reserve)';
  return figures.reserve < DEFAULT_RESERVE
    ? 'what a reply needs: the output cap, below the usual 1,024'
    : 'what a reply needs: 1,024 (each reply gets the room the prompt leaves)';
}

/**
 * `/limits`: every figure the budget is made of, and where each came from: window, output cap,
 * reserve, safety margin, prompt budget, tool schemas, what is in use now and the room left for the
 * next reply.
 *
 * @example
 * printer.line(formatLimits({ limits, figures: session.budgetFigures(), reserve: 'reply', status, outputCap }));
 */
export function formatLimits({
  limits,
  figures,
  reserve,
  status,
  outputCap,
}: {
  limits: ResolvedLimits;
  /** The budget in force (a window the session learned from an overflow wins). */
  figures: Budget;
  reserve: ReserveReason;
  status: ContextStatus;
  /** The output cap in force (a learned one wins). */
  outputCap?: number;
}): string {
  const windowSource =
    figures.window !== limits.contextLength
      ? `${describeLimitSource('stated')}, over ${count(limits.contextLength)} (${describeLimitSource(limits.source.contextLength)})`
      : describeLimitSource(limits.source.contextLength);
  const capSource =
    outputCap !== undefined && outputCap !== limits.outputCap
      ? describeLimitSource('stated')
      : describeLimitSource(limits.source.outputCap);
  const room = Math.max(0, figures.window - status.tokens - CLAMP_MARGIN);
  const nextReply = outputCap === undefined ? room : Math.min(outputCap, room);
  const ratio = figures.window > 0 ? Math.round((1_000 * figures.safety) / figures.window) / 10 : 0;
  const rows: Array<[string, string, string]> = [
    ['window', count(figures.window), windowSource],
    ['output cap', outputCap === undefined ? 'none' : count(outputCap), capSource],
    ['reserve', count(figures.reserve), reserveText(reserve, figures)],
    ['safety margin', count(figures.safety), `${ratio}% of the window, for estimation error`],
    ['prompt budget', count(figures.budget), 'window − reserve − safety margin'],
    ['tool schemas', count(status.parts.schemas.tokens), 'sent with every request, inside the prompt budget'],
    [
      'in use now',
      count(status.tokens),
      status.basis === 'provider'
        ? "the provider's count of the last exchange"
        : status.basis === 'anchored'
          ? "the provider's count of the last exchange, and an estimate of what came after"
          : 'estimated',
    ],
    [
      'next reply',
      count(nextReply),
      `max_tokens at most: window − in use − ${CLAMP_MARGIN}${outputCap === undefined ? '' : ', and the output cap'}`,
    ],
  ];
  const width = Math.max(...rows.map(([, value]) => value.length));
  return [
    `model          ${limits.model}`,
    ...rows.map(([label, value, source]) => `${label.padEnd(14)} ${value.padStart(width)}  ${source}`),
  ].join('\n');
}

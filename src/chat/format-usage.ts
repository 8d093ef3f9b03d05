import { count, formatDollars } from './format-chat.js';
import { type ChatPrices, type UsageFigures, uncachedTokens, usageCost } from './session-usage.js';

/**
 * `/cost`: the session's requests, prompt tokens (read from the cache, written to it, uncached),
 * reply tokens, and the cost when prices are configured.
 *
 * @example
 * printer.line(formatUsage({ figures: session.usageFigures, prices: config.prices, sessionId }));
 */
export function formatUsage({
  figures,
  prices,
  sessionId,
}: {
  figures: UsageFigures;
  prices?: ChatPrices;
  sessionId?: string;
}): string {
  const lines = [
    `${sessionId === undefined ? 'no session yet' : `session ${sessionId.slice(0, 8)}`} · ${count(figures.requests)} request${figures.requests === 1 ? '' : 's'}`,
    `prompt tokens  ${count(figures.promptTokens).padStart(10)}  cached ${count(figures.cachedTokens)} · written to the cache ${count(figures.cacheWriteTokens)} · uncached ${count(uncachedTokens(figures))}`,
    `reply tokens   ${count(figures.completionTokens).padStart(10)}`,
  ];
  if (prices) {
    const cost = usageCost(figures, prices);
    lines.push(
      `cost           ${formatDollars(cost.total).padStart(10)}  uncached ${formatDollars(cost.uncachedInput)} · cached ${formatDollars(cost.cachedInput)} · cache writes ${formatDollars(cost.cacheWrite)} · replies ${formatDollars(cost.output)}`,
    );
  } else
    lines.push(
      'cost           set "prices" in the config ({"input": 2.5, "cached_input": 1.25, "output": 10}, US dollars per million tokens) to see it',
    );
  if (figures.withoutCacheFigure > 0)
    lines.push(
      `${count(figures.withoutCacheFigure)} request${figures.withoutCacheFigure === 1 ? '' : 's'} stated no cache figure (earlier turns of a resumed session, or a server that does not say): counted as uncached`,
    );
  return lines.join('\n');
}

import { formatMeter } from './format-chat.js';
import type { OpenChat } from './open-chat-session.js';
import { usageCost } from './session-usage.js';

/**
 * The meter line after a turn: the context figure `/context` splits, and the session's cost when
 * prices are configured.
 *
 * @example
 * printer.dim(meterOf(chat)); // 'context 12k / 33k (36%) · budget 31k · schemas 975 · session $0.0123'
 */
export function meterOf(chat: OpenChat): string {
  const { session } = chat;
  return formatMeter({
    status: session.contextStatus(),
    ...(chat.prices ? { cost: usageCost(session.usageFigures, chat.prices).total } : {}),
  });
}

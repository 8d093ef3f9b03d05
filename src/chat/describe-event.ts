import { describeRecoveryStep, formatTokens } from '../core/index.js';
import type { LoopEvent } from '../loop/index.js';

/** A notice for people, with how loud it should be. */
export interface ChatNotice {
  level: 'info' | 'warning' | 'error';
  text: string;
}

const RETRY_REASONS = {
  stream_interrupted: 'the reply stream broke off',
  invalid_tool_arguments: 'the model sent tool arguments that are not valid JSON',
  context_exhausted: 'the reply was cut off because the window ran out',
  silent_truncation:
    'the server silently cut the prompt to a smaller window; the turn is sent again fitted to it',
} as const;

/**
 * What a loop event means, in plain words, or `undefined` for the events the chat shows otherwise
 * (streamed text, tool calls, usage) or not at all.
 *
 * @example
 * describeEvent({ type: 'cut', iteration: 4, kind: 'drop', freed: 7_100, droppedTurns: 3, elided: 0, shortened: 0, after: 7_100, budget: 7_520 });
 * // { level: 'info', text: 'cut 7.1k tokens to fit the window: 3 older turns left out (now 7.1k of 7.5k)' }
 */
export function describeEvent(event: LoopEvent): ChatNotice | undefined {
  switch (event.type) {
    case 'cut':
      return { level: 'info', text: describeCut(event) };
    case 'compaction-start':
      return {
        level: 'info',
        text:
          event.reason === 'overflow'
            ? 'the provider rejected the request as too large for its window; recovering…'
            : event.reason === 'exhaustion'
              ? 'the reply ran out of window; compacting…'
              : 'compacting…',
      };
    case 'compaction-end':
      return event.removed > 0
        ? {
            level: 'info',
            text: `compacted: ${event.removed} message${event.removed === 1 ? '' : 's'} taken out (${event.kind})`,
          }
        : undefined;
    case 'recovery':
      return event.action === 'give_up'
        ? { level: 'error', text: `could not recover from the ${event.overflow} overflow` }
        : {
            level: 'info',
            text: `recovered from a ${event.overflow} overflow: ${event.steps.map(describeRecoveryStep).join('; ') || event.action}`,
          };
    case 'retry':
      return {
        level: 'warning',
        text: `retrying: ${RETRY_REASONS[event.reason]} (attempt ${event.attempt})`,
      };
    case 'notice':
      return { level: event.level, text: event.message };
    default:
      return undefined;
  }
}

/** A cut in plain words: what it took out, and the request's size after it. */
function describeCut(event: Extract<LoopEvent, { type: 'cut' }>): string {
  const parts: string[] = [];
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  if (event.droppedTurns > 0) parts.push(`${plural(event.droppedTurns, 'older turn')} left out`);
  if (event.elided > 0) parts.push(`${plural(event.elided, 'older tool output')} elided`);
  if (event.shortened > 0) parts.push(`${plural(event.shortened, 'new tool output')} shortened`);
  return `cut ${formatTokens(event.freed)} tokens to fit the window: ${parts.join(', ')} (now ${formatTokens(event.after)} of ${formatTokens(event.budget)})`;
}

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
} as const;

/**
 * What a loop event means, in plain words, or `undefined` for the events the chat shows otherwise
 * (streamed text, tool calls, usage) or not at all.
 *
 * @example
 * describeEvent({ type: 'prune', droppedTurns: 3, before: 14_200, after: 7_100, budget: 7_520 });
 * // { level: 'info', text: 'pruned 3 older turns to fit the budget (14k → 7.1k of 7.5k tokens)' }
 */
export function describeEvent(event: LoopEvent): ChatNotice | undefined {
  // Tool-output compression events come from managers that compress (newer builds of core).
  const compress = event as unknown as { type: string; escalated?: number; before?: number; after?: number };
  if (compress.type === 'compress' && compress.escalated !== undefined)
    return {
      level: 'info',
      text: `shortened ${compress.escalated} older tool output${compress.escalated === 1 ? '' : 's'} (${formatTokens(compress.before ?? 0)} → ${formatTokens(compress.after ?? 0)} tokens)`,
    };
  switch (event.type) {
    case 'prune':
      return {
        level: 'info',
        text: `pruned ${event.droppedTurns} older turn${event.droppedTurns === 1 ? '' : 's'} to fit the budget (${formatTokens(event.before)} → ${formatTokens(event.after)} of ${formatTokens(event.budget)} tokens)`,
      };
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

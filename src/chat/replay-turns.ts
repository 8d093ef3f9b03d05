import { type Content, contentText, type Message } from '../core/index.js';

/** One line of a replayed conversation, with how it is shown. */
export interface ReplayLine {
  kind: 'prompt' | 'text' | 'tool' | 'more';
  text: string;
}

/** The most lines of one reply replayed; the rest is elided. */
export const REPLAY_REPLY_LINES = 6;
const REPLAY_LINE_CHARS = 200;

/** The text a reply showed: its text parts, not its reasoning. */
function shownText(content: Content): string {
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

const short = (text: string) =>
  text.length > REPLAY_LINE_CHARS ? `${text.slice(0, REPLAY_LINE_CHARS - 1)}…` : text;

/**
 * The last `prompts` prompts of a conversation and what followed each (reply text, cut to a few
 * lines, and the tools called), for a resumed session to show where it stands.
 *
 * @example
 * replayTurns({ messages, prompts: 2 }); // [{ kind: 'prompt', text: '› Fix the test' }, { kind: 'tool', … }, …]
 */
export function replayTurns({ messages, prompts = 3 }: { messages: readonly Message[]; prompts?: number }): {
  lines: ReplayLine[];
  shownPrompts: number;
  totalPrompts: number;
} {
  const starts = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  const from = starts[Math.max(0, starts.length - prompts)] ?? messages.length;
  const lines: ReplayLine[] = [];
  for (const message of messages.slice(from)) {
    if (message.role === 'user') {
      const [first = '', ...rest] = contentText(message.content).trim().split('\n');
      lines.push({
        kind: 'prompt',
        text: `› ${short(first)}${rest.length > 0 ? ` (+${rest.length} lines)` : ''}`,
      });
    } else if (message.role === 'assistant') {
      const text = shownText(message.content).trim();
      if (text !== '') {
        const replyLines = text.split('\n');
        for (const line of replyLines.slice(0, REPLAY_REPLY_LINES))
          lines.push({ kind: 'text', text: short(line) });
        if (replyLines.length > REPLAY_REPLY_LINES)
          lines.push({ kind: 'more', text: `… ${replyLines.length - REPLAY_REPLY_LINES} more lines` });
      }
      for (const call of message.toolCalls ?? [])
        lines.push({ kind: 'tool', text: short(`▸ ${call.name} ${call.arguments}`) });
    }
  }
  return { lines, shownPrompts: Math.min(prompts, starts.length), totalPrompts: starts.length };
}

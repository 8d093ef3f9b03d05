import type { LoopEvent } from '../loop/index.js';
import { type ChatNotice, describeEvent } from './describe-event.js';

/** Writes a conversation to a terminal: streamed text, tool calls, notices, the meter. */
export interface ChatPrinter {
  /** Streamed reply text, as it arrives. */
  text(delta: string): void;
  toolCall(call: { name: string; args: unknown }): void;
  toolError(failure: { name: string; message: string }): void;
  notice(notice: ChatNotice): void;
  /** A dim line: the meter, hints. */
  dim(line: string): void;
  line(text: string): void;
  /** Ends streamed text with a newline if it left the cursor mid-line. */
  endText(): void;
  /** Handles one loop event: stream deltas and notices. */
  event(event: LoopEvent): void;
  /** Whether any reply text was printed since the last `reset`. */
  readonly printedText: boolean;
  reset(): void;
}

const STYLES = { dim: '\x1b[2m', yellow: '\x1b[33m', red: '\x1b[31m', cyan: '\x1b[36m', reset: '\x1b[0m' };

/**
 * A printer on `output`; colors only when `color` (a TTY without `NO_COLOR`).
 *
 * @example
 * const printer = createChatPrinter({ output: process.stdout, color: process.stdout.isTTY });
 */
export function createChatPrinter({
  output,
  color,
}: {
  output: { write(text: string): unknown };
  color: boolean;
}): ChatPrinter {
  let midLine = false;
  let printed = false;
  const paint = (style: keyof typeof STYLES, text: string) =>
    color ? `${STYLES[style]}${text}${STYLES.reset}` : text;
  const write = (text: string) => {
    output.write(text);
    if (text.length > 0) midLine = !text.endsWith('\n');
  };
  const endText = () => {
    if (midLine) write('\n');
  };
  const printer: ChatPrinter = {
    text(delta) {
      printed = true;
      write(delta);
    },
    toolCall({ name, args }) {
      endText();
      const shown = JSON.stringify(args ?? {});
      write(
        `${paint('cyan', `▸ ${name}`)} ${paint('dim', shown.length > 100 ? `${shown.slice(0, 99)}…` : shown)}\n`,
      );
    },
    toolError({ name, message }) {
      endText();
      write(
        `${paint('yellow', `✗ ${name}: ${message.length > 200 ? `${message.slice(0, 199)}…` : message}`)}\n`,
      );
    },
    notice({ level, text }) {
      endText();
      const style = level === 'error' ? 'red' : level === 'warning' ? 'yellow' : 'dim';
      write(`${paint(style, `· ${text}`)}\n`);
    },
    dim(line) {
      endText();
      write(`${paint('dim', line)}\n`);
    },
    line(text) {
      endText();
      write(`${text}\n`);
    },
    endText,
    event(event) {
      if (event.type === 'stream') {
        if (event.event.type === 'text-delta') printer.text(event.event.text);
        return;
      }
      if (event.type === 'send-start') return;
      const notice = describeEvent(event);
      if (notice) printer.notice(notice);
    },
    get printedText() {
      return printed;
    },
    reset() {
      printed = false;
    },
  };
  return printer;
}

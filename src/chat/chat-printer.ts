/**
 * @module
 * Writes a conversation to a terminal: streamed text, tool calls, a running command's output,
 * approval previews, notices, and a spinner with the elapsed time and tokens while nothing else
 * moves.
 */
import { estimateTokens } from '../core/index.js';
import type { LoopEvent } from '../loop/index.js';
import { type ChatNotice, describeEvent } from './describe-event.js';
import { createSpinner, type Spinner, type SpinnerState } from './spinner.js';

/** Lines of one command's output shown on screen (the model gets its start and end either way). */
export const COMMAND_SHOWN_LINES = 200;
/** Lines of an approval preview shown before the question. */
export const PREVIEW_SHOWN_LINES = 40;

/** Writes a conversation to a terminal. */
export interface ChatPrinter {
  /** Streamed reply text, as it arrives. */
  text(delta: string): void;
  toolCall(call: { name: string; args: unknown }): void;
  toolError(failure: { name: string; message: string }): void;
  /** A running command's output, as it arrives. */
  commandOutput(chunk: { text: string }): void;
  /** What an action will do, before the user is asked: a diff, a new file, a command. */
  preview(text: string): void;
  notice(notice: ChatNotice): void;
  /** A dim line: the meter, hints. */
  dim(line: string): void;
  line(text: string): void;
  /** Ends streamed text with a newline if it left the cursor mid-line, and clears the spinner. */
  endText(): void;
  /** Handles one loop event: stream deltas, the spinner, notices. */
  event(event: LoopEvent): void;
  /** Whether any reply text was printed since the last `reset`. */
  readonly printedText: boolean;
  /** A new turn: nothing printed yet, the clock starts now. */
  reset(): void;
}

const STYLES = {
  dim: '\x1b[2m',
  yellow: '\x1b[33m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  cyan: '\x1b[36m',
  reset: '\x1b[0m',
};

/** Options of {@link createChatPrinter}. */
export interface ChatPrinterOptions {
  output: { write(text: string): unknown; columns?: number };
  color: boolean;
  /** Show a spinner while waiting (a terminal only). */
  spinner?: boolean;
  now?: () => number;
}

/**
 * A printer on `output`; colors only when `color` (a TTY without `NO_COLOR`), a spinner only when
 * `spinner`.
 *
 * @example
 * const printer = createChatPrinter({ output: process.stdout, color: true, spinner: true });
 */
export function createChatPrinter({
  output,
  color,
  spinner: spin = false,
  now = Date.now,
}: ChatPrinterOptions): ChatPrinter {
  let midLine = false;
  let printed = false;
  let turnStart = now();
  let waiting: SpinnerState = { activity: 'waiting for the reply' };
  let commandLines = 0;
  let commandPartial = '';
  /** Tool-call deltas name the tool in their first chunk only. */
  let streamedTool = 'a tool call';
  const spinner: Spinner | undefined = spin ? createSpinner({ output, now }) : undefined;
  const paint = (style: keyof typeof STYLES, text: string) =>
    color ? `${STYLES[style]}${text}${STYLES.reset}` : text;
  const write = (text: string) => {
    spinner?.stop();
    output.write(text);
    if (text.length > 0) midLine = !text.endsWith('\n');
  };
  const endText = () => {
    spinner?.stop();
    if (midLine) write('\n');
  };
  const spinFor = (state: SpinnerState) => {
    waiting = state;
    if (!spinner) return;
    endText();
    spinner.start(waiting, turnStart);
  };
  const receive = (activity: string, text: string) => {
    waiting = { ...waiting, activity, received: (waiting.received ?? 0) + estimateTokens(text).total };
    spinner?.update(waiting);
  };
  const flushCommand = () => {
    if (commandPartial === '') return;
    const partial = commandPartial;
    commandPartial = '';
    printer.commandOutput({ text: `${partial}\n` });
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
      commandLines = 0;
      spinFor({ activity: `running ${name}` });
    },
    toolError({ name, message }) {
      flushCommand();
      endText();
      write(
        `${paint('yellow', `✗ ${name}: ${message.length > 200 ? `${message.slice(0, 199)}…` : message}`)}\n`,
      );
    },
    commandOutput({ text }) {
      const lines = (commandPartial + text).split('\n');
      commandPartial = lines.pop() ?? '';
      if (lines.length === 0) return;
      endText();
      for (const line of lines) {
        commandLines++;
        if (commandLines <= COMMAND_SHOWN_LINES) write(`${paint('dim', `  │ ${line}`)}\n`);
        else if (commandLines === COMMAND_SHOWN_LINES + 1)
          write(`${paint('dim', '  │ … (more output: the model gets its start and its end)')}\n`);
      }
      if (spinner) spinner.start(waiting, turnStart);
    },
    preview(text) {
      flushCommand();
      endText();
      const lines = text.replace(/\n$/, '').split('\n');
      for (const line of lines.slice(0, PREVIEW_SHOWN_LINES)) {
        const style = line.startsWith('+') ? 'green' : line.startsWith('-') ? 'red' : 'dim';
        write(`${paint(style, `  ${line}`)}\n`);
      }
      if (lines.length > PREVIEW_SHOWN_LINES)
        write(`${paint('dim', `  … ${lines.length - PREVIEW_SHOWN_LINES} more lines`)}\n`);
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
      switch (event.type) {
        case 'fit':
          // Before or after `send-start`, depending on who fits: the spinner shows it either way.
          waiting = { ...waiting, sent: event.estimate, sentCounted: false };
          spinner?.update(waiting);
          return;
        case 'send-start':
          spinFor({
            activity: event.synthesis ? 'writing the answer' : 'waiting for the reply',
            ...(waiting.sent === undefined ? {} : { sent: waiting.sent }),
          });
          return;
        case 'usage':
          waiting = { ...waiting, sent: event.promptTokens, sentCounted: true };
          spinner?.update(waiting);
          return;
        case 'tool-end':
          flushCommand();
          spinner?.stop();
          return;
        case 'end':
          spinner?.stop();
          return;
        case 'stream':
          if (event.event.type === 'text-delta') printer.text(event.event.text);
          else if (event.event.type === 'reasoning-delta') receive('thinking', event.event.text);
          else if (event.event.type === 'tool-call-delta') {
            if (event.event.name) streamedTool = event.event.name;
            receive(`writing ${streamedTool}`, event.event.argumentsDelta);
          }
          return;
      }
      const notice = describeEvent(event);
      if (notice) printer.notice(notice);
    },
    get printedText() {
      return printed;
    },
    reset() {
      printed = false;
      turnStart = now();
      waiting = { activity: 'waiting for the reply' };
    },
  };
  return printer;
}

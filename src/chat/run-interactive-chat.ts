/**
 * @module
 * The interactive chat on a terminal: a readline prompt, streamed replies, y/N questions before a
 * tool writes or runs anything, Ctrl+C to cancel a reply (twice at the prompt to leave).
 */
import { createInterface } from 'node:readline';
import type { LoopResult } from '../loop/index.js';
import { type ChatPrinter, createChatPrinter } from './chat-printer.js';
import type { ActionRequest, ConfirmAction } from './confirm-action.js';
import { formatMeter } from './format-chat.js';
import type { OpenChat } from './open-chat-session.js';
import { runSlashCommand, SLASH_COMMANDS } from './run-slash-command.js';

/** A confirm function whose answerer is set later (the tools exist before the prompt does). */
export interface ConfirmBridge {
  confirm: ConfirmAction;
  answer(handler: ConfirmAction): void;
}

/** A {@link ConfirmBridge} that refuses until an answerer is set. */
export function createConfirmBridge(): ConfirmBridge {
  let handler: ConfirmAction = async () => false;
  return { confirm: (request: ActionRequest) => handler(request), answer: (next) => (handler = next) };
}

/** Options of {@link runInteractiveChat}. */
export interface InteractiveChatOptions {
  chat: OpenChat;
  confirm: ConfirmBridge;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream & { isTTY?: boolean };
  color?: boolean;
}

function banner(chat: OpenChat, printer: ChatPrinter): void {
  const { session, limits } = chat;
  printer.line(`spillway chat · ${limits.model} at ${chat.baseUrl} (${chat.format})`);
  printer.dim(
    `window ${session.window.toLocaleString('en-US')} · output cap ${limits.outputCap?.toLocaleString('en-US') ?? 'none'} · /limits for where they came from · /help for commands`,
  );
  if (session.id !== undefined)
    printer.notice({
      level: 'info',
      text: `resumed session ${session.id} (${session.messages.length} messages)`,
    });
}

function report(result: LoopResult, printer: ChatPrinter, chat: OpenChat): void {
  printer.endText();
  if (
    (result.reason === 'completed' || result.reason === 'max_iterations') &&
    !printer.printedText &&
    result.text
  )
    printer.line(result.text);
  if (result.reason === 'aborted') printer.notice({ level: 'warning', text: 'cancelled' });
  else if (result.reason === 'max_iterations' || (result.reason !== 'completed' && result.message))
    printer.notice({
      level: result.reason === 'max_iterations' ? 'info' : 'error',
      text: result.message ?? result.reason,
    });
  printer.dim(formatMeter(chat.session.meter()));
}

/**
 * Runs the chat until `/quit`, Ctrl+D or a second Ctrl+C at the prompt; resolves with the exit code.
 *
 * @example
 * const bridge = createConfirmBridge();
 * const chat = await openChatSession({ config, flags, confirm: bridge.confirm });
 * process.exitCode = await runInteractiveChat({ chat, confirm: bridge });
 */
export async function runInteractiveChat({
  chat,
  confirm,
  input = process.stdin,
  output = process.stdout,
  color = Boolean(output.isTTY) && !process.env.NO_COLOR,
}: InteractiveChatOptions): Promise<number> {
  const terminal = Boolean(input.isTTY && output.isTTY);
  const rl = createInterface({
    input,
    output,
    terminal,
    prompt: '› ',
    completer: (line: string) => [SLASH_COMMANDS.filter((command) => command.startsWith(line)), line],
  });
  const printer = createChatPrinter({ output, color });
  let running: AbortController | undefined;
  let current: Promise<void> | undefined;
  let armed = false;
  let closed = false;

  confirm.answer(
    ({ summary, signal }) =>
      new Promise<boolean>((resolve) => {
        if (signal?.aborted || closed) return resolve(false);
        printer.endText();
        rl.question(`allow: ${summary}? [y/N] `, signal ? { signal } : {}, (answer) =>
          resolve(/^y(es)?$/i.test(answer.trim())),
        );
        signal?.addEventListener('abort', () => resolve(false), { once: true });
      }),
  );

  const handle = async (line: string): Promise<void> => {
    const text = line.trim();
    if (text === '') return;
    running = new AbortController();
    const { signal } = running;
    try {
      if (text.startsWith('/')) {
        if ((await runSlashCommand({ line: text, chat, printer, signal })) === 'quit') rl.close();
        return;
      }
      const before = chat.session.id;
      printer.reset();
      const result = await chat.session.send(text, {
        signal,
        onEvent: (event) => printer.event(event),
        onToolCall: (call) => printer.toolCall(call),
        onToolError: (failure) => printer.toolError(failure),
      });
      if (before === undefined && chat.session.id !== undefined)
        printer.dim(
          `session ${chat.session.id} (spillway chat --resume ${chat.session.id.slice(0, 8)} continues it)`,
        );
      report(result, printer, chat);
    } catch (error) {
      printer.notice({ level: 'error', text: (error as Error).message });
    } finally {
      running = undefined;
    }
  };

  banner(chat, printer);
  return await new Promise<number>((resolve) => {
    rl.on('SIGINT', () => {
      if (running) {
        running.abort();
        return;
      }
      if (armed) {
        rl.close();
        return;
      }
      armed = true;
      rl.write(null, { ctrl: true, name: 'u' });
      printer.dim('\n(Ctrl+C again to quit)');
      rl.prompt();
    });
    rl.on('line', (line) => {
      armed = false;
      if (running) {
        printer.dim('(busy: wait for the reply, or Ctrl+C to cancel it)');
        return;
      }
      current = handle(line).then(() => {
        current = undefined;
        if (!closed) rl.prompt();
      });
    });
    rl.on('close', () => {
      closed = true;
      running?.abort();
      // The turn in flight ends (aborted) before the store is closed under it.
      void (current ?? Promise.resolve()).then(() => {
        printer.endText();
        resolve(0);
      });
    });
    rl.prompt();
  });
}

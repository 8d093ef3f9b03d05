/**
 * @module
 * The interactive chat on a terminal: a readline prompt (a line ending in `\` continues, a paste
 * stays one message), streamed replies with a spinner while waiting, y/n/a questions with a preview
 * before a tool writes or runs anything, lines typed during a reply kept and sent after it, Ctrl+C
 * to cancel a reply (twice at the prompt to leave).
 */
import { createInterface } from 'node:readline';
import type { LoopResult } from '../loop/index.js';
import { createApprovalAsker } from './ask-approval.js';
import { meterOf } from './chat-meter.js';
import { type ChatPrinter, createChatPrinter } from './chat-printer.js';
import type { ActionRequest, ConfirmAction } from './confirm-action.js';
import { gateResize } from './gated-output.js';
import type { OpenChat } from './open-chat-session.js';
import { PromptAssembler } from './prompt-assembler.js';
import type { CommandOutput } from './run-command-tool.js';
import { runSlashCommand, SLASH_COMMANDS, showResumed } from './run-slash-command.js';

/** The prompt, and the one a continued message shows. */
const PROMPT = '› ';
const CONTINUATION = '… ';
/** Bracketed paste on and off (xterm's mode 2004): a paste arrives between two markers. */
const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

/** What the tools ask and show, whose answerer is set later (the tools exist before the prompt). */
export interface ConfirmBridge {
  confirm: ConfirmAction;
  answer(handler: ConfirmAction): void;
  /** A running command's output, passed to whoever shows it. */
  commandOutput: CommandOutput;
  showOutput(handler: CommandOutput): void;
}

/** A {@link ConfirmBridge} that refuses and shows nothing until handlers are set. */
export function createConfirmBridge(): ConfirmBridge {
  let handler: ConfirmAction = async () => false;
  let show: CommandOutput = () => {};
  return {
    confirm: (request: ActionRequest) => handler(request),
    answer: (next) => (handler = next),
    commandOutput: (chunk) => show(chunk),
    showOutput: (next) => (show = next),
  };
}

/** Options of {@link runInteractiveChat}. */
export interface InteractiveChatOptions {
  chat: OpenChat;
  confirm: ConfirmBridge;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  color?: boolean;
}

function banner(chat: OpenChat, printer: ChatPrinter): void {
  const { session, limits } = chat;
  printer.line(`spillway chat · ${limits.model} at ${chat.baseUrl} (${chat.format})`);
  printer.dim(
    `window ${session.window.toLocaleString('en-US')} · output cap ${limits.outputCap?.toLocaleString('en-US') ?? 'none'} · /limits for where they came from · /help for commands`,
  );
  const record = session.id === undefined ? undefined : chat.store.getSession(session.id);
  if (record) showResumed({ chat, printer, record });
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
  if (chat.session.id !== undefined) printer.dim(meterOf(chat));
}

const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);

/**
 * Runs the chat until `/quit`, Ctrl+D or a second Ctrl+C at the prompt; resolves with the exit code.
 *
 * @example
 * const bridge = createConfirmBridge();
 * const chat = await openChatSession({ config, flags, confirm: bridge.confirm, onCommandOutput: bridge.commandOutput });
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
  const gated = gateResize(output);
  const rl = createInterface({
    input,
    output: gated.stream,
    terminal,
    prompt: PROMPT,
    completer: (line: string) => [SLASH_COMMANDS.filter((command) => command.startsWith(line)), line],
  });
  const printer = createChatPrinter({ output, color, spinner: terminal });
  const assembler = new PromptAssembler();
  /** Messages typed while a reply was running, sent in order after it. */
  const queue: string[] = [];
  let running: AbortController | undefined;
  let current: Promise<void> | undefined;
  let armed = false;
  let closed = false;

  // No prompt while busy, and no redraw on a resize: it would wipe the line a reply is being
  // written on and leave a `›` in it.
  const showPrompt = () => {
    gated.hold(false);
    rl.setPrompt(assembler.continuing ? CONTINUATION : PROMPT);
    rl.prompt(true);
  };

  confirm.answer(
    createApprovalAsker({
      ask: (question, signal) =>
        new Promise<string | undefined>((resolve) => {
          if (signal?.aborted || closed) return resolve(undefined);
          // The question is a prompt line of its own: it may be redrawn on a resize.
          gated.hold(false);
          const answered = (answer: string | undefined) => {
            gated.hold(true);
            resolve(answer);
          };
          rl.question(question, signal ? { signal } : {}, answered);
          signal?.addEventListener('abort', () => answered(undefined), { once: true });
        }),
      printer,
      sessionId: () => chat.session.id,
      keepTypeAhead: (text) => queue.push(text),
    }),
  );
  confirm.showOutput((chunk) => printer.commandOutput(chunk));

  const runTurn = async (text: string): Promise<void> => {
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

  const start = (text: string): void => {
    gated.hold(true);
    rl.setPrompt('');
    current = runTurn(text).then(() => {
      current = undefined;
      if (closed) return;
      const next = queue.shift();
      if (next === undefined) return showPrompt();
      printer.line(`${PROMPT}${next}`);
      start(next);
    });
  };

  const onKeypress = (_text: string | undefined, key: { name?: string } | undefined) => {
    if (key?.name === 'paste-start') assembler.pasteStart();
    else if (key?.name === 'paste-end') {
      assembler.pasteEnd();
      if (!running && assembler.continuing) showPrompt();
    }
  };

  banner(chat, printer);
  if (terminal) {
    output.write(PASTE_ON);
    // Before readline's own listener: the paste markers must be seen before the lines they enclose.
    input.prependListener('keypress', onKeypress);
  }
  return await new Promise<number>((resolve) => {
    rl.on('SIGINT', () => {
      if (running) {
        running.abort();
        if (queue.length > 0)
          printer.notice({
            level: 'warning',
            text: `dropped ${queue.length} message${queue.length === 1 ? '' : 's'} typed during the reply: ${queue.map(quoted).join(', ')}`,
          });
        queue.length = 0;
        return;
      }
      if (armed) {
        rl.close();
        return;
      }
      armed = true;
      assembler.discard();
      rl.write(null, { ctrl: true, name: 'u' });
      printer.dim('\n(Ctrl+C again to quit)');
      showPrompt();
    });
    rl.on('line', (line) => {
      armed = false;
      const assembled = assembler.line(line);
      const text = assembled.kind === 'prompt' ? assembled.text.trim() : '';
      if (running) {
        if (text === '') return;
        queue.push(text);
        printer.dim(`· queued ${quoted(text)}: sent after this reply`);
        return;
      }
      if (text === '') return showPrompt();
      start(text);
    });
    rl.on('close', () => {
      closed = true;
      running?.abort();
      gated.close();
      if (terminal) {
        input.removeListener('keypress', onKeypress);
        output.write(PASTE_OFF);
      }
      // The turn in flight ends (aborted) before the store is closed under it.
      void (current ?? Promise.resolve()).then(() => {
        printer.endText();
        resolve(0);
      });
    });
    showPrompt();
  });
}

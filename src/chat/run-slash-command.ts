import { SpillwayError } from '../core/index.js';
import type { SessionRecord } from '../store/index.js';
import { meterOf } from './chat-meter.js';
import type { ChatPrinter } from './chat-printer.js';
import { CHAT_HELP, count, formatContext, formatSessions } from './format-chat.js';
import { formatLimits } from './format-limits.js';
import { formatUsage } from './format-usage.js';
import type { OpenChat } from './open-chat-session.js';
import { replayTurns } from './replay-turns.js';

/** The slash commands, for completion and `/help`. */
export const SLASH_COMMANDS = [
  '/compact',
  '/context',
  '/limits',
  '/cost',
  '/model',
  '/sessions',
  '/resume',
  '/clear',
  '/help',
  '/quit',
];

/**
 * What a resumed session shows: its last prompts and replies, and a warning when it continues with
 * another model than the one it was started with.
 *
 * @example
 * showResumed({ chat, printer, record: chat.session.resume('3f2a') });
 */
export function showResumed({
  chat,
  printer,
  record,
}: {
  chat: OpenChat;
  printer: ChatPrinter;
  record: SessionRecord;
}): void {
  const { lines, shownPrompts, totalPrompts } = replayTurns({ messages: chat.session.messages });
  if (lines.length > 0) {
    printer.dim(`── the last ${shownPrompts} of ${totalPrompts} prompts ──`);
    for (const line of lines)
      (line.kind === 'prompt' || line.kind === 'text' ? printer.line : printer.dim)(line.text);
    printer.dim('──');
  }
  printer.notice({ level: 'info', text: `resumed session ${record.id} (${record.messageCount} messages)` });
  if (record.model !== undefined && record.model !== chat.session.model)
    printer.notice({
      level: 'warning',
      text: `this session was started with ${record.model}; it continues with ${chat.session.model}, whose window is ${count(chat.session.window)} tokens: the history is counted again for it`,
    });
}

async function switchModel({
  chat,
  printer,
  id,
}: {
  chat: OpenChat;
  printer: ChatPrinter;
  id: string | undefined;
}) {
  const { session } = chat;
  if (id === undefined) {
    printer.line(
      `model ${session.model} at ${chat.baseUrl} (${chat.format}) · window ${count(session.window)} · output cap ${chat.limits.outputCap === undefined ? 'none' : count(chat.limits.outputCap)}\n/model ID switches from the next prompt on; /limits shows where the figures come from`,
    );
    return;
  }
  const previous = session.model;
  const limits = await chat.useModel(id);
  printer.notice({
    level: 'info',
    text: `${previous} → ${id}: window ${count(session.window)}, output cap ${limits.outputCap === undefined ? 'none' : count(limits.outputCap)} (/limits for where they came from); the history is counted again for it`,
  });
}

/**
 * Runs one slash command line (`/compact`, `/resume 3f2a`…) and says whether the chat should end.
 * `signal` cancels a command that calls the model (`/compact`).
 *
 * @example
 * if ((await runSlashCommand({ line: '/limits', chat, printer })) === 'quit') rl.close();
 */
export async function runSlashCommand({
  line,
  chat,
  printer,
  signal,
}: {
  line: string;
  chat: OpenChat;
  printer: ChatPrinter;
  signal?: AbortSignal;
}): Promise<'quit' | undefined> {
  const [name = '', ...args] = line.trim().split(/\s+/);
  const { session } = chat;
  switch (name) {
    case '/quit':
    case '/exit':
      return 'quit';
    case '/help':
      printer.line(CHAT_HELP);
      return undefined;
    case '/compact': {
      const result = await session.compact({
        ...(signal ? { signal } : {}),
        onEvent: (event) => printer.event(event),
      });
      if (!result.ok) printer.notice({ level: 'warning', text: `nothing compacted: ${result.message}` });
      else printer.dim(meterOf(chat));
      return undefined;
    }
    case '/context':
      printer.line(formatContext(session.contextStatus()));
      return undefined;
    case '/limits':
      printer.line(
        formatLimits({
          limits: chat.limits,
          figures: session.budgetFigures(),
          reserve: chat.reserveReason,
          status: session.contextStatus(),
          ...(session.outputCap === undefined ? {} : { outputCap: session.outputCap }),
        }),
      );
      return undefined;
    case '/cost':
      printer.line(
        formatUsage({
          figures: session.usageFigures,
          ...(chat.prices ? { prices: chat.prices } : {}),
          ...(session.id === undefined ? {} : { sessionId: session.id }),
        }),
      );
      return undefined;
    case '/model':
      await switchModel({ chat, printer, id: args[0] });
      return undefined;
    case '/sessions':
      printer.line(formatSessions(chat.store.listSessions({ limit: 15 }), session.id));
      return undefined;
    case '/resume': {
      const id = args[0];
      if (id === undefined) {
        printer.notice({ level: 'warning', text: 'give the session id: /resume ID (see /sessions)' });
        return undefined;
      }
      try {
        showResumed({ chat, printer, record: session.resume(id) });
      } catch (error) {
        if (!SpillwayError.isInstance(error)) throw error;
        printer.notice({ level: 'warning', text: error.message });
      }
      return undefined;
    }
    case '/clear':
      session.clear();
      printer.notice({
        level: 'info',
        text: 'new session (the previous one stays saved; /sessions lists it)',
      });
      return undefined;
    default:
      printer.notice({ level: 'warning', text: `unknown command ${name}; /help lists them` });
      return undefined;
  }
}

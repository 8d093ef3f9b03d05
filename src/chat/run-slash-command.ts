import { SpillwayError } from '../core/index.js';
import type { ChatPrinter } from './chat-printer.js';
import { CHAT_HELP, formatContext, formatLimits, formatMeter, formatSessions } from './format-chat.js';
import type { OpenChat } from './open-chat-session.js';

/** The slash commands, for completion and `/help`. */
export const SLASH_COMMANDS = [
  '/compact',
  '/context',
  '/limits',
  '/sessions',
  '/resume',
  '/clear',
  '/help',
  '/quit',
];

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
      else printer.dim(formatMeter({ ...session.meter(), tokens: session.context().total, reported: false }));
      return undefined;
    }
    case '/context':
      printer.line(formatContext(session.context(), session.meter()));
      return undefined;
    case '/limits':
      printer.line(
        formatLimits({
          limits: chat.limits,
          window: session.window,
          budget: session.budget,
          reserve: chat.reserve,
        }),
      );
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
        const record = session.resume(id);
        printer.notice({
          level: 'info',
          text: `resumed session ${record.id} (${record.messageCount} messages)`,
        });
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

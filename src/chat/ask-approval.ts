/**
 * @module
 * The y/n/a question before a tool writes or runs something, on a terminal: the preview first, then
 * the question with the real path. `a` allows the tool for the rest of the session. An answer that is
 * none of these is not taken as "no": it is kept as the next message (it was typed ahead) and the
 * question is asked again.
 */
import type { ChatPrinter } from './chat-printer.js';
import type { ActionRequest, ConfirmAction } from './confirm-action.js';

/** How one answer is read. */
export type ApprovalAnswer = 'yes' | 'no' | 'always' | 'other';

/** Reads an answer: `y`/`yes`, `n`/`no` or nothing (the default), `a`/`always`; anything else is `other`. */
export function readApprovalAnswer(answer: string): ApprovalAnswer {
  const text = answer.trim().toLowerCase();
  if (text === 'y' || text === 'yes') return 'yes';
  if (text === '' || text === 'n' || text === 'no') return 'no';
  if (text === 'a' || text === 'always') return 'always';
  return 'other';
}

/** Options of {@link createApprovalAsker}. */
export interface ApprovalAskerOptions {
  /** Shows the question and resolves with the line typed, or `undefined` when it was withdrawn. */
  ask: (question: string, signal?: AbortSignal) => Promise<string | undefined>;
  printer: ChatPrinter;
  /** The session the answers belong to: "always" lasts until it changes. */
  sessionId: () => string | undefined;
  /** Takes a line that was no answer, to send as the next message. */
  keepTypeAhead: (text: string) => void;
}

/**
 * The interactive {@link ConfirmAction}.
 *
 * @example
 * bridge.answer(createApprovalAsker({ ask, printer, sessionId: () => chat.session.id, keepTypeAhead: queue.push }));
 */
export function createApprovalAsker({
  ask,
  printer,
  sessionId,
  keepTypeAhead,
}: ApprovalAskerOptions): ConfirmAction {
  const always = new Set<string>();
  let alwaysFor: string | undefined;
  return async ({ tool, summary, preview, signal }: ActionRequest) => {
    if (alwaysFor !== sessionId()) always.clear();
    if (always.has(tool)) {
      printer.dim(`· ${summary} (allowed: ${tool} always, this session)`);
      return true;
    }
    if (preview) printer.preview(preview);
    let question = `allow: ${summary}? [y/N/a=always for ${tool}] `;
    for (;;) {
      printer.endText();
      const answer = await ask(question, signal);
      if (answer === undefined) return false;
      const meaning = readApprovalAnswer(answer);
      if (meaning === 'yes') return true;
      if (meaning === 'no') return false;
      if (meaning === 'always') {
        always.add(tool);
        alwaysFor = sessionId();
        return true;
      }
      keepTypeAhead(answer.trim());
      printer.dim(`· kept "${answer.trim().slice(0, 60)}" as your next message`);
      question = `allow: ${summary}? answer y, n or a [y/N/a] `;
    }
  };
}

/**
 * @module
 * `spillway chat -p "prompt"`: one task, the answer on stdout, notices on stderr when a person is
 * watching it, and errors as a plain line plus the JSON shape every command uses.
 */
import { SpillwayError, type SpillwayErrorCode } from '../core/index.js';
import type { LoopResult } from '../loop/index.js';
import { meterOf } from './chat-meter.js';
import { createChatPrinter } from './chat-printer.js';
import type { OpenChat } from './open-chat-session.js';

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

/** The error a run that did not complete ends the command with. */
export function resultError(result: LoopResult): SpillwayError | undefined {
  if (result.reason === 'completed' || result.reason === 'max_iterations') return undefined;
  const code: SpillwayErrorCode =
    result.reason === 'context_truncated'
      ? 'context_truncated'
      : result.reason === 'aborted'
        ? 'aborted'
        : 'provider_error';
  const cause = result.error;
  if (SpillwayError.isInstance(cause) && cause.code === code && cause.message === result.message)
    return cause;
  return new SpillwayError(code, result.message ?? `the run ended: ${result.reason}`, {
    ...(cause === undefined ? {} : { cause }),
    data: { reason: result.reason, ...(SpillwayError.isInstance(cause) ? { detail: cause.toJSON() } : {}) },
  });
}

/** Options of {@link runPrintMode}. */
export interface PrintModeOptions {
  chat: OpenChat;
  prompt: string;
  stdout?: Stream;
  stderr?: Stream;
  /** Print `{"session_id","reason","text","usage"}` instead of the bare answer. */
  json?: boolean;
  signal?: AbortSignal;
}

/**
 * Runs one prompt to its answer. Resolves with the answer printed and `error` unset, or with the
 * error to report (the caller prints it the way every command does and exits with its code).
 *
 * @example
 * const { error } = await runPrintMode({ chat, prompt: 'Summarize README.md' });
 * return error ? reportError(error) : EXIT_OK;
 */
export async function runPrintMode({
  chat,
  prompt,
  stdout = process.stdout,
  stderr = process.stderr,
  json = false,
  signal,
}: PrintModeOptions): Promise<{ result: LoopResult; error?: SpillwayError }> {
  const watched = Boolean(stderr.isTTY);
  const notices = createChatPrinter({ output: stderr, color: watched && !process.env.NO_COLOR });
  const live = Boolean(stdout.isTTY) && !json;
  const answer = createChatPrinter({ output: stdout, color: false });
  const result = await chat.session.send(prompt, {
    ...(signal ? { signal } : {}),
    onEvent: (event) => {
      if (event.type === 'stream') {
        if (live) answer.event(event);
      } else if (watched) notices.event(event);
    },
    ...(watched
      ? {
          onToolCall: (call: { name: string; args: unknown }) => notices.toolCall(call),
          onToolError: (failure: { name: string; message: string }) => notices.toolError(failure),
        }
      : {}),
  });
  const error = resultError(result);
  if (json) {
    stdout.write(
      `${JSON.stringify({ session_id: chat.session.id ?? null, reason: result.reason, text: result.text, usage: chat.session.usage })}\n`,
    );
  } else if (!error) {
    if (live) answer.endText();
    else stdout.write(`${result.text}\n`);
  }
  if (watched) {
    if (chat.session.id) {
      notices.dim(meterOf(chat));
      notices.dim(`session ${chat.session.id}`);
    }
  }
  if (error) stderr.write(`spillway chat: ${error.message}\n`);
  return { result, ...(error ? { error } : {}) };
}

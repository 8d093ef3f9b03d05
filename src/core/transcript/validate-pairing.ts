import { SpillwayError } from '../errors/index.js';
import { requireMessages } from './require-input.js';
import { indexTranscript, type TranscriptIndex, type WalkedIssue } from './transcript-index.js';
import type { Message } from './types.js';

/** What is wrong with one tool call or tool result. */
export type PairingIssueKind =
  | 'empty_id'
  | 'duplicate_call_id'
  | 'orphan_result'
  | 'result_before_call'
  | 'result_in_later_turn'
  | 'duplicate_result'
  | 'missing_result';

/** One pairing problem, with the message index and the id it concerns. */
export interface PairingIssue {
  kind: PairingIssueKind;
  /** Index of the offending message in the transcript. */
  messageIndex: number;
  /** The tool-call id concerned ('' when it is empty). */
  toolCallId: string;
  /** What is wrong and what to do about it. */
  message: string;
}

/** The outcome of {@link validatePairing}. */
export type PairingResult = { ok: true; issues: [] } | { ok: false; issues: PairingIssue[] };

/**
 * Checks that tool calls and tool results pair up the way every provider requires.
 *
 * Every tool result must answer a tool call declared earlier in the same turn, once. Every tool call
 * needs a result, except in the newest turn, where a call may still be pending. Ids must be non-empty
 * and unique. Returns all issues found, in transcript order; never throws. The check is the
 * transcript walk's ({@link indexTranscript}): a history checked before is checked again only for
 * the messages appended since.
 *
 * @example
 * const result = validatePairing(messages);
 * if (!result.ok) console.error(result.issues[0].message);
 */
export function validatePairing(messages: readonly Message[]): PairingResult {
  if (!Array.isArray(messages)) requireMessages(messages, 'validatePairing');
  const index = indexTranscript(messages, 'validatePairing');
  const newestTurn = index.turnOf.length === 0 ? -1 : (index.turnOf[index.turnOf.length - 1] ?? -1);
  const issues = index.issues.map((walked) => pairingIssue(walked, index));
  for (const [id, call] of index.unanswered)
    if (call.turn !== newestTurn)
      issues.push(
        issue(
          'missing_result',
          call.messageIndex,
          id,
          `tool call ${id} (message ${call.messageIndex}) has no result and is not in the newest turn; add its result or drop the call`,
        ),
      );
  if (issues.length === 0) return { ok: true, issues: [] };
  issues.sort((a, b) => a.messageIndex - b.messageIndex);
  return { ok: false, issues };
}

/** A problem the walk found, said in full now that the whole list is known. */
function pairingIssue(walked: WalkedIssue, index: TranscriptIndex): PairingIssue {
  const { messageIndex: at, toolCallId: id, other } = walked;
  switch (walked.kind) {
    case 'empty_id':
      return walked.name === undefined
        ? issue(
            'empty_id',
            at,
            '',
            `tool result (message ${at}) has an empty tool-call id; set it to the id of the call it answers`,
          )
        : issue(
            'empty_id',
            at,
            '',
            `tool call ${walked.name} (message ${at}) has an empty id; give every tool call a unique id`,
          );
    case 'duplicate_call_id':
      return issue(
        'duplicate_call_id',
        at,
        id,
        `tool call ${id} (message ${at}) reuses the id of a call in message ${other}; tool-call ids must be unique`,
      );
    case 'duplicate_result':
      return issue(
        'duplicate_result',
        at,
        id,
        `tool call ${id} is answered twice (again in message ${at}); keep one result per call`,
      );
    case 'result_in_later_turn':
      return issue(
        'result_in_later_turn',
        at,
        id,
        `tool result ${id} (message ${at}) answers a call from an earlier turn (message ${other}); results must follow their call before the next assistant message`,
      );
    case 'unmatched_result': {
      const later = index.calls.get(id)?.index;
      return later !== undefined && later > at
        ? issue(
            'result_before_call',
            at,
            id,
            `tool result ${id} (message ${at}) comes before its call in message ${later}; move the result after the call`,
          )
        : issue(
            'orphan_result',
            at,
            id,
            `tool result ${id} (message ${at}) answers no earlier tool call; restore the call or drop the result`,
          );
    }
  }
}

/**
 * Like {@link validatePairing}, but throws an `invalid_transcript` {@link SpillwayError} naming the
 * first issue (all issues are in `error.data.issues`).
 */
export function assertPairing(messages: readonly Message[]): void {
  const result = validatePairing(messages);
  if (result.ok) return;
  const first = result.issues[0] as PairingIssue;
  const more = result.issues.length > 1 ? ` (and ${result.issues.length - 1} more pairing issues)` : '';
  throw new SpillwayError('invalid_transcript', first.message + more, { data: { issues: result.issues } });
}

function issue(
  kind: PairingIssueKind,
  messageIndex: number,
  toolCallId: string,
  message: string,
): PairingIssue {
  return { kind, messageIndex, toolCallId, message };
}

import { SpillwayError } from '../errors/index.js';
import { requireMessages } from './require-input.js';
import { splitTurns } from './split-turns.js';
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

interface CallSite {
  messageIndex: number;
  turn: number;
  answered: boolean;
}

/**
 * Checks that tool calls and tool results pair up the way every provider requires.
 *
 * Every tool result must answer a tool call declared earlier in the same turn, once. Every tool call
 * needs a result, except in the newest turn, where a call may still be pending. Ids must be non-empty
 * and unique. Returns all issues found, in transcript order; never throws.
 *
 * @example
 * const result = validatePairing(messages);
 * if (!result.ok) console.error(result.issues[0].message);
 */
export function validatePairing(messages: readonly Message[]): PairingResult {
  requireMessages(messages, 'validatePairing');
  const issues: PairingIssue[] = [];
  const turnOf = turnIndexOf(messages);
  const newestTurn = turnOf.length === 0 ? -1 : (turnOf[turnOf.length - 1] ?? -1);
  const calls = new Map<string, CallSite>();
  const laterCalls = collectCallIds(messages);

  messages.forEach((message, messageIndex) => {
    const turn = turnOf[messageIndex] ?? -1;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        if (call.id === '') {
          issues.push(
            issue(
              'empty_id',
              messageIndex,
              '',
              `tool call ${call.name} (message ${messageIndex}) has an empty id; give every tool call a unique id`,
            ),
          );
          continue;
        }
        const earlier = calls.get(call.id);
        if (earlier) {
          issues.push(
            issue(
              'duplicate_call_id',
              messageIndex,
              call.id,
              `tool call ${call.id} (message ${messageIndex}) reuses the id of a call in message ${earlier.messageIndex}; tool-call ids must be unique`,
            ),
          );
          continue;
        }
        calls.set(call.id, { messageIndex, turn, answered: false });
      }
      return;
    }
    if (message.role !== 'tool') return;
    const id = message.toolCallId;
    if (id === '') {
      issues.push(
        issue(
          'empty_id',
          messageIndex,
          '',
          `tool result (message ${messageIndex}) has an empty tool-call id; set it to the id of the call it answers`,
        ),
      );
      return;
    }
    const call = calls.get(id);
    if (!call) {
      const later = laterCalls.get(id);
      if (later !== undefined && later > messageIndex) {
        issues.push(
          issue(
            'result_before_call',
            messageIndex,
            id,
            `tool result ${id} (message ${messageIndex}) comes before its call in message ${later}; move the result after the call`,
          ),
        );
      } else {
        issues.push(
          issue(
            'orphan_result',
            messageIndex,
            id,
            `tool result ${id} (message ${messageIndex}) answers no earlier tool call; restore the call or drop the result`,
          ),
        );
      }
      return;
    }
    if (call.answered) {
      issues.push(
        issue(
          'duplicate_result',
          messageIndex,
          id,
          `tool call ${id} is answered twice (again in message ${messageIndex}); keep one result per call`,
        ),
      );
      return;
    }
    call.answered = true;
    if (call.turn !== turn) {
      issues.push(
        issue(
          'result_in_later_turn',
          messageIndex,
          id,
          `tool result ${id} (message ${messageIndex}) answers a call from an earlier turn (message ${call.messageIndex}); results must follow their call before the next assistant message`,
        ),
      );
    }
  });

  for (const [id, call] of calls) {
    if (!call.answered && call.turn !== newestTurn) {
      issues.push(
        issue(
          'missing_result',
          call.messageIndex,
          id,
          `tool call ${id} (message ${call.messageIndex}) has no result and is not in the newest turn; add its result or drop the call`,
        ),
      );
    }
  }
  issues.sort((a, b) => a.messageIndex - b.messageIndex);
  return issues.length === 0 ? { ok: true, issues: [] } : { ok: false, issues };
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

/** Turn number of every message: -1 for the head, 0.. for the turns. */
function turnIndexOf(messages: readonly Message[]): number[] {
  const { head, turns } = splitTurns(messages);
  const result = new Array<number>(messages.length).fill(-1);
  for (let index = head.start; index < head.end; index++) result[index] = -1;
  turns.forEach((range, turn) => {
    for (let index = range.start; index < range.end; index++) result[index] = turn;
  });
  return result;
}

/** The first message index declaring each tool-call id. */
function collectCallIds(messages: readonly Message[]): Map<string, number> {
  const ids = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    for (const call of message.toolCalls ?? []) if (!ids.has(call.id)) ids.set(call.id, index);
  });
  return ids;
}

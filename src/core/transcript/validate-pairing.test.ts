import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors/index.js';
import type { Message } from './types.js';
import { assertPairing, validatePairing } from './validate-pairing.js';

const user = (content: string): Message => ({ role: 'user', content });
const call = (...ids: string[]): Message => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map((id) => ({ id, name: 'read_file', arguments: '{}' })),
});
const result = (id: string): Message => ({ role: 'tool', toolCallId: id, content: 'text' });

describe('validatePairing', () => {
  it('accepts answered calls and a pending call in the newest turn', () => {
    expect(validatePairing([user('go'), call('a', 'b'), result('a'), result('b'), call('c')]).ok).toBe(true);
  });

  it('names the message index and id of a result that answers no call', () => {
    const outcome = validatePairing([user('go'), call('a'), result('a'), result('call_7')]);
    expect(outcome.ok).toBe(false);
    expect(outcome.issues).toEqual([
      expect.objectContaining({ kind: 'orphan_result', messageIndex: 3, toolCallId: 'call_7' }),
    ]);
    expect(outcome.issues[0]?.message).toBe(
      'tool result call_7 (message 3) answers no earlier tool call; restore the call or drop the result',
    );
  });

  it('rejects a result placed before its call', () => {
    const outcome = validatePairing([user('go'), result('a'), call('a')]);
    expect(outcome.issues.map((issue) => issue.kind)).toContain('result_before_call');
  });

  it('rejects duplicate call ids, empty ids and duplicate results', () => {
    const kinds = validatePairing([
      user('go'),
      call('a', 'a', ''),
      result('a'),
      result('a'),
      result(''),
    ]).issues.map((issue) => issue.kind);
    expect(kinds).toEqual(expect.arrayContaining(['duplicate_call_id', 'empty_id', 'duplicate_result']));
  });

  it('rejects an unanswered call outside the newest turn', () => {
    const outcome = validatePairing([user('go'), call('a'), call('b'), result('b')]);
    expect(outcome.issues).toEqual([
      expect.objectContaining({ kind: 'missing_result', messageIndex: 1, toolCallId: 'a' }),
    ]);
  });

  it('rejects a result that answers a call from an earlier turn', () => {
    const outcome = validatePairing([
      user('go'),
      call('a'),
      { role: 'assistant', content: 'thinking' },
      result('a'),
    ]);
    expect(outcome.issues.map((issue) => issue.kind)).toContain('result_in_later_turn');
  });

  it('throws invalid_transcript from assertPairing with every issue attached', () => {
    try {
      assertPairing([user('go'), result('x'), result('y')]);
      expect.unreachable();
    } catch (error) {
      expect(SpillwayError.isInstance(error) && error.code).toBe('invalid_transcript');
      expect((error as SpillwayError).data.issues).toHaveLength(2);
      expect((error as Error).message).toContain('(and 1 more pairing issues)');
    }
  });
});

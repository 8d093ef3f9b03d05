import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import { parseRecallArguments, RECALL_TOOL, type RecallSpan, recall } from './recall.js';

const tool: Message = {
  role: 'tool',
  toolCallId: 'c1',
  content: Array.from({ length: 300 }, (_, line) => `line ${line + 1}`).join('\n'),
};
const record: RecallSpan[] = [
  { id: '41', kind: 'elided', label: 'read_file src/app.ts', messages: [tool] },
  {
    id: '7',
    kind: 'compacted',
    label: '2 messages summarized',
    messages: [
      { role: 'user', content: 'Fix the test' },
      { role: 'assistant', content: 'Done.' },
    ],
  },
];

describe('recall', () => {
  it('returns the whole span under its id, with or without #', () => {
    const result = recall({ id: '#7' }, record);
    expect(result).toMatchObject({ ok: true, id: '7', kind: 'compacted', more: false });
    expect(result.ok && result.text).toBe(
      '[recalled #7: 2 messages summarized, lines 1-5 of 5]\n[user]\nFix the test\n\n[assistant]\nDone.',
    );
  });

  it('returns a slice of lines, and says where to continue when the reply would be too long', () => {
    const slice = recall({ id: 41, slice: { start: 10, end: 12 } }, record);
    expect(slice.ok && slice.text).toBe(
      '[recalled #41: read_file src/app.ts, lines 10-12 of 300]\nline 10\nline 11\nline 12',
    );
    const capped = recall({ id: '41' }, record, { maxChars: 100 });
    expect(capped).toMatchObject({ ok: true, more: true, lines: { start: 1, total: 300 } });
    expect(capped.ok && capped.text).toMatch(/call recall with id "41" and lines "\d+-300"\]$/);
  });

  it('answers an unknown id or a range outside the span with a message that says what to do', () => {
    expect(recall({ id: '99' }, record)).toMatchObject({ ok: false, code: 'unknown_id' });
    expect(recall({ id: '41', slice: { start: 400 } }, record)).toMatchObject({
      ok: false,
      code: 'invalid_slice',
    });
  });

  it('reads the tool arguments the model sends', () => {
    expect(parseRecallArguments('{"id":"41","lines":"120-180"}')).toEqual({
      id: '41',
      slice: { start: 120, end: 180 },
    });
    expect(parseRecallArguments({ id: 7, lines: '5' })).toEqual({ id: '7', slice: { start: 5, end: 5 } });
    expect(parseRecallArguments('{"lines":"1-2"}')).toBeUndefined();
    expect(parseRecallArguments('not json')).toBeUndefined();
    expect(RECALL_TOOL.name).toBe('recall');
  });
});

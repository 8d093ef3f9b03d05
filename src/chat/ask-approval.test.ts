import { describe, expect, it } from 'vitest';
import { createApprovalAsker, readApprovalAnswer } from './ask-approval.js';
import { createChatPrinter } from './chat-printer.js';

function asker(answers: Array<string | undefined>, session = { id: 's1' as string | undefined }) {
  const written: string[] = [];
  const questions: string[] = [];
  const kept: string[] = [];
  const printer = createChatPrinter({
    output: { write: (text: string) => written.push(text) },
    color: false,
  });
  const confirm = createApprovalAsker({
    ask: async (question) => {
      questions.push(question);
      return answers.shift();
    },
    printer,
    sessionId: () => session.id,
    keepTypeAhead: (text) => kept.push(text),
  });
  return { confirm, written, questions, kept, session };
}

describe('approvals on a terminal', () => {
  it('reads y, n, nothing and a; anything else is no answer', () => {
    expect(
      ['y', 'YES', ' n ', '', 'No', 'a', 'always', 'yep', 'run the tests'].map(readApprovalAnswer),
    ).toEqual(['yes', 'yes', 'no', 'no', 'no', 'always', 'always', 'other', 'other']);
  });

  it('shows the preview, then asks; a line that is no answer is kept and the question asked again', async () => {
    const { confirm, written, questions, kept } = asker(['run the tests', 'y']);
    const allowed = await confirm({
      tool: 'write_file',
      summary: 'write a.md (2 bytes, new file)',
      preview: '+++ a.md (new file)\n+hi',
    });
    expect(allowed).toBe(true);
    expect(kept).toEqual(['run the tests']);
    expect(questions).toEqual([
      'allow: write a.md (2 bytes, new file)? [y/N/a=always for write_file] ',
      'allow: write a.md (2 bytes, new file)? answer y, n or a [y/N/a] ',
    ]);
    expect(written.join('')).toContain('  +++ a.md (new file)\n  +hi\n');
  });

  it('refuses on n, on Enter alone and when the question is withdrawn', async () => {
    for (const answer of ['n', '', undefined]) {
      const { confirm } = asker([answer]);
      expect(await confirm({ tool: 'run_command', summary: 'run ls' })).toBe(false);
    }
  });

  it('allows a tool always after "a", until the session changes', async () => {
    const { confirm, questions, session } = asker(['a', 'n']);
    expect(await confirm({ tool: 'write_file', summary: 'write a' })).toBe(true);
    expect(await confirm({ tool: 'write_file', summary: 'write b' })).toBe(true);
    expect(questions).toHaveLength(1);
    session.id = 's2';
    expect(await confirm({ tool: 'write_file', summary: 'write c' })).toBe(false);
    expect(questions).toHaveLength(2);
  });
});

/**
 * The chat session the terminal tests and the chat bench drive: a project of three logs, and a model
 * that reads them one by one and writes a summary (the write is asked twice: the first request for
 * it is the one a small window rejects).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeToolResult, type ScriptReply } from '../../src/emulator/index.js';

/** Writes the three logs (`a.txt`, `b.txt`, `c.txt`) into `project`. */
export function writeThreeLogs(project: string): void {
  for (const [name, size] of Object.entries({ 'a.txt': 5_000, 'b.txt': 3_500, 'c.txt': 1_500 }))
    writeFileSync(join(project, name), fakeToolResult({ name: 'read_file', args: { path: name }, size }));
}

/** The model's replies: the three reads, the write (twice), the answer, then `more`. */
export function threeLogsReplies(more: ScriptReply[] = []): ScriptReply[] {
  const write = { name: 'write_file', arguments: { path: 'note.txt', content: 'Three test logs.\n' } };
  return [
    { text: 'Reading a.txt.', toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'b.txt' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'c.txt' } }] },
    { toolCalls: [write] },
    { toolCalls: [write] },
    { text: 'Saved a summary to note.txt.' },
    ...more,
  ];
}

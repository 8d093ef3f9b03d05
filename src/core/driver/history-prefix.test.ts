import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import { hashText } from '../transcript/index.js';
import {
  applyHistoryPrefix,
  hashMessages as hashWith,
  prefixFromCompaction as prefixWith,
} from './history-prefix.js';

const hashMessages = (messages: readonly Message[]) => hashWith(messages, hashText);
const applyStoredPrefix = (messages: Message[], prefix: Parameters<typeof applyHistoryPrefix>[1]) =>
  applyHistoryPrefix(messages, prefix, hashText);
const prefixFromCompaction = ({
  client,
  ...rest
}: {
  client: Message[];
  sent: Message[];
  compacted: Message[];
  previous?: Parameters<typeof applyHistoryPrefix>[1];
}) => prefixWith({ caller: client, ...rest, hash: hashText });

const system: Message = { role: 'system', content: 'You are a coding agent.' };
const task: Message = { role: 'user', content: 'Fix the bug.' };
function turn(index: number): Message[] {
  return [
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `call_${index}`, name: 'read_file', arguments: '{}' }],
    },
    { role: 'tool', toolCallId: `call_${index}`, content: `file ${index}` },
  ];
}
const history: Message[] = [system, task, ...turn(1), ...turn(2), ...turn(3)];

describe('stored prefixes', () => {
  const summary: Message = { role: 'user', content: 'Summary: read files 1 and 2.' };

  it('records what a compaction replaced and applies it to the longer history of the next request', () => {
    const compacted = [system, task, summary, ...turn(3)];
    const prefix = prefixFromCompaction({ client: history, sent: history, compacted });
    // The head the compaction kept is stored as references to the client's own messages.
    expect(prefix).toMatchObject({ covered: 6, replacement: [{ ref: 0 }, { ref: 1 }, summary] });
    const next = [...history, ...turn(4)];
    expect(applyStoredPrefix(next, prefix!)).toEqual([system, task, summary, ...turn(3), ...turn(4)]);
  });

  it('does not apply to a history whose prefix changed', () => {
    const prefix = prefixFromCompaction({
      client: history,
      sent: history,
      compacted: [system, task, summary, ...turn(3)],
    });
    const edited = [system, { role: 'user', content: 'Fix the other bug.' } as Message, ...history.slice(2)];
    expect(applyStoredPrefix(edited, prefix!)).toBeUndefined();
    expect(applyStoredPrefix(history.slice(0, 6), prefix!)).toBeUndefined();
  });

  it('counts a second compaction in the client messages, over the first', () => {
    const first = prefixFromCompaction({
      client: history,
      sent: history,
      compacted: [system, task, summary, ...turn(3)],
    })!;
    const client = [...history, ...turn(4), ...turn(5)];
    const sent = applyStoredPrefix(client, first)!;
    const summary2: Message = { role: 'user', content: 'Summary: files 1 to 4.' };
    const second = prefixFromCompaction({
      client,
      sent,
      compacted: [system, task, summary2, ...turn(5)],
      previous: first,
    })!;
    expect(second.covered).toBe(10);
    expect(second.hash).toBe(hashMessages(client.slice(0, 10)));
    expect(applyStoredPrefix(client, second)).toEqual([system, task, summary2, ...turn(5)]);
  });

  it('keeps nothing from a compaction that changed nothing', () => {
    expect(prefixFromCompaction({ client: history, sent: history, compacted: history })).toBeUndefined();
    expect(
      prefixFromCompaction({ client: history, sent: history, compacted: history.slice() }),
    ).toBeUndefined();
  });

  it('carries a compaction that changed the newest message into the next, longer history', () => {
    const newest = history.at(-1) as Message;
    const shortened: Message = { ...newest, content: 'file 3 [… cut to fit]' } as Message;
    const compacted = [system, task, summary, ...history.slice(-2, -1), shortened];
    const prefix = prefixFromCompaction({ client: history, sent: history, compacted });
    expect(prefix).toMatchObject({ covered: history.length });
    // The same history resent is left to the fit; a longer one starts with the replacement.
    expect(applyStoredPrefix(history, prefix!)).toBeUndefined();
    expect(applyStoredPrefix([...history, ...turn(4)], prefix!)).toEqual([...compacted, ...turn(4)]);
  });
});

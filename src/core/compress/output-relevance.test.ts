import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import { MAX_REREADS_AFTER_CUT, outputUses } from './output-relevance.js';

const head: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the bug.' },
];

function shell(id: string, command: string, output: string, text = ''): Message[] {
  return [
    {
      role: 'assistant',
      content: text,
      toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
    },
    { role: 'tool', toolCallId: id, content: output },
  ];
}

describe('outputUses', () => {
  it('dates an output by the last later call that names one of its names', () => {
    const messages = [
      ...head,
      ...shell('find', 'find . -name "*.py"', './pkg/loader_utils.py\n./pkg/other_module.py'),
      ...shell('ls', 'ls', 'README.md'),
      ...shell('cat', 'cat pkg/loader_utils.py', 'def load_thing(): pass', 'Reading loader_utils'),
    ];
    const uses = outputUses({ messages });
    // `find` printed pkg/loader_utils.py, which the `cat` call at index 6 names.
    expect(uses.get('find')).toBe(6);
    expect(uses.get('ls')).toBe(5);
  });

  it('puts an output superseded by a rerun of the same command before everything', () => {
    const messages = [
      ...head,
      ...shell('a', 'python reproduce.py', 'ok 1'),
      ...shell('b', 'python reproduce.py', 'ok 2'),
    ];
    expect(outputUses({ messages }).get('a')).toBe(-1);
  });

  it('keeps an error output until the same program runs again without one', () => {
    const failing = 'Traceback (most recent call last):\n  File "x.py", line 3\nValueError: bad value';
    const open = [...head, ...shell('run', 'python x.py', failing), ...shell('ls', 'ls -la', 'x.py')];
    expect(outputUses({ messages: open }).get('run')).toBe(open.length);
    const fixed = [...open, ...shell('again', 'python y.py', 'all good')];
    expect(outputUses({ messages: fixed }).get('run')).toBeLessThan(fixed.length);
  });

  it('keeps the newest read of a file cut and re-read more than twice: a re-read loop', () => {
    const reads = Array.from({ length: MAX_REREADS_AFTER_CUT + 2 }, (_, index) => `read${index}`);
    const messages = [
      ...head,
      ...reads.flatMap((id, index): Message[] => [
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id, name: 'read', arguments: JSON.stringify({ path: 'src/big.ts', offset: index }) }],
        },
        { role: 'tool', toolCallId: id, content: `part ${index}` },
      ]),
      ...shell('ls', 'ls', 'x'),
    ];
    const newest = reads.at(-1) as string;
    const cut = new Set(reads.slice(0, -1));
    expect(outputUses({ messages, elided: cut }).get(newest)).toBe(messages.length);
    const fewer = new Set(reads.slice(0, MAX_REREADS_AFTER_CUT));
    expect(outputUses({ messages, elided: fewer }).get(newest)).toBeLessThan(messages.length);
  });
});

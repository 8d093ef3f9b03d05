import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import { namesOnlyIn } from './cut-names.js';

const read = (id: string, path: string, output: string): Message[] => [
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path }) }],
  },
  { role: 'tool', toolCallId: id, content: output },
];

describe('namesOnlyIn', () => {
  it('lists the names of the cut messages that the kept ones do not carry, the most frequent first', () => {
    const cut = [
      ...read(
        'a',
        'src/geometry/separable.py',
        'def _cstack(left, right):\n    return _cstack(_cstack(left), right)',
      ),
      ...read('b', 'src/geometry/core.py', 'class CompoundModel:\n    left = None'),
    ];
    const kept: Message[] = [{ role: 'user', content: 'Fix CompoundModel in src/geometry.' }];
    const names = namesOnlyIn({ cut, kept, maxChars: 1_000 });
    expect(names[0]).toBe('_cstack');
    expect(names).toContain('src/geometry/separable.py');
    // Its parts are listed in the path itself.
    expect(names).not.toContain('separable.py');
    expect(names).not.toContain('separable');
    expect(names.indexOf('left')).toBeLessThan(names.indexOf('right'));
    expect(names).not.toContain('CompoundModel');
    expect(names).not.toContain('geometry');
  });

  it('lists nothing without room or without cut messages', () => {
    const cut = read('a', 'src/app.py', 'def handler(event): pass');
    expect(namesOnlyIn({ cut, kept: [], maxChars: 0 })).toEqual([]);
    expect(namesOnlyIn({ cut: [], kept: cut, maxChars: 500 })).toEqual([]);
  });

  it('returns only names found in the cut and not in the kept, within maxChars, the same on every call', () => {
    const word = fc.stringMatching(/^[a-z_][a-z0-9_]{2,9}$/);
    const text = fc.array(word, { maxLength: 30 }).map((words) => words.join(' '));
    const message = text.map((content): Message => ({ role: 'tool', toolCallId: 'x', content }));
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.array(message, { maxLength: 6 }),
        fc.nat({ max: 300 }),
        (cut, kept, maxChars) => {
          const names = namesOnlyIn({ cut, kept, maxChars });
          expect(names.join(', ').length).toBeLessThanOrEqual(maxChars);
          expect(new Set(names).size).toBe(names.length);
          const keptWords = new Set(kept.flatMap((m) => String(m.content).split(' ')));
          const cutWords = new Set(cut.flatMap((m) => String(m.content).split(' ')));
          for (const name of names) {
            expect(cutWords.has(name)).toBe(true);
            expect(keptWords.has(name)).toBe(false);
          }
          expect(namesOnlyIn({ cut, kept, maxChars })).toEqual(names);
        },
      ),
    );
  });
});

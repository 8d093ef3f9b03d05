import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import { namesOnlyIn } from './cut-names.js';

const NAME =
  /\/?(?:[A-Za-z0-9_.-]+\/)+[A-Za-z0-9_.-]*[A-Za-z0-9_]|[A-Za-z_][A-Za-z0-9_]{3,}(?:\.[A-Za-z_][A-Za-z0-9_]*)*/g;

function partsOf(name: string): string[] {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const parts = base !== name && base.length >= 4 ? [base] : [];
  for (const part of name.split(/[./]/)) if (part.length >= 4 && part !== base) parts.push(part);
  return parts;
}

/** The definition, written plainly: every name of every message, ranked, then listed one by one. */
function reference(cut: Message[], kept: Message[], maxChars: number): string[] {
  const all = (message: Message) =>
    [...String(message.content).matchAll(NAME)].flatMap(([name]) =>
      name.includes('/') || name.includes('.') ? [name, ...partsOf(name)] : [name],
    );
  const seen = new Set(kept.flatMap(all));
  const counts = new Map<string, number>();
  for (const name of cut.flatMap(all)) if (!seen.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
  let names: string[] = [];
  let length = -2;
  for (const [name] of [...counts].sort((a, b) => b[1] - a[1])) {
    if (names.join('\n').includes(name)) continue;
    const held = partsOf(name).filter((part) => names.includes(part));
    const freed = held.reduce((sum, part) => sum + part.length + 2, 0);
    if (length - freed + name.length + 2 > maxChars) continue;
    names = names.filter((part) => !held.includes(part));
    names.push(name);
    length += name.length + 2 - freed;
  }
  return names;
}

/** Texts made of a few names and paths that contain one another. */
const piece = fc.constantFrom(
  'src',
  'app',
  'app.py',
  'src/app.py',
  'test',
  'pytest',
  'tests/test_app.py',
  'a/b',
  'pkg.mod.name',
  'mod',
  'name',
  'x1',
  ' ',
  ' ',
  '\n',
  '/',
  '.',
);
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
const messages = fc.array(
  text.map((content): Message => ({ role: 'user', content })),
  { maxLength: 5 },
);

describe('namesOnlyIn', () => {
  it('lists what the plain definition lists, in its order, at every length', () => {
    fc.assert(
      fc.property(messages, messages, fc.integer({ min: 0, max: 200 }), (cut, kept, maxChars) => {
        expect(namesOnlyIn({ cut, kept, maxChars })).toEqual(reference(cut, kept, maxChars));
      }),
      { numRuns: 500 },
    );
  });
});

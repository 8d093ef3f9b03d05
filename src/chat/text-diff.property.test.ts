import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffOps, unifiedDiff } from './text-diff.js';

const text = fc
  .array(fc.constantFrom('a', 'b', 'c', 'd', '', 'long line'), { maxLength: 30 })
  .map((lines) => lines.join('\n'));

/** Applies a unified diff's hunks to `before`. */
function apply(before: string, diff: string): string {
  const lines = before.split('\n');
  const out: string[] = [];
  let at = 0;
  const patch = diff.split('\n').slice(2, -1);
  for (const line of patch) {
    const header = /^@@ -(\d+),\d+ \+\d+,\d+ @@$/.exec(line);
    if (header) {
      const start = Number(header[1]) - 1;
      out.push(...lines.slice(at, start));
      at = start;
    } else if (line.startsWith('+')) out.push(line.slice(1));
    else {
      expect(lines[at]).toBe(line.slice(1));
      if (line.startsWith(' ')) out.push(line.slice(1));
      at++;
    }
  }
  out.push(...lines.slice(at));
  return out.join('\n');
}

describe('text diffs', () => {
  it('keep every line of both texts, in order', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const ops = diffOps(before, after);
        const kept = (kinds: string) => ops.filter((op) => kinds.includes(op.kind)).map((op) => op.line);
        const split = (value: string) => {
          const lines = value.split('\n');
          return before.endsWith('\n') && after.endsWith('\n') && lines.length > 1
            ? lines.slice(0, -1)
            : lines;
        };
        expect(kept(' -')).toEqual(split(before));
        expect(kept(' +')).toEqual(split(after));
      }),
    );
  });

  it('make a unified diff that turns the old text into the new one', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const diff = unifiedDiff({ path: 'f', before, after });
        if (before === after) expect(diff).toBe('');
        else expect(apply(before, diff)).toBe(after);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonDepthExcess, jsonTextDepthExcess } from './json-depth.js';
import { JsonTextMemo, type JsonTextRead } from './json-text-memo.js';

/** Strings full of what could fool a scanner: brackets, quotes, backslashes, separators. */
const tricky = fc.string({
  unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ' ', ':', ',', 'é', '😀'),
  maxLength: 6,
});
const node = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.constantFrom(null, true, false),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('node'), { maxKeys: 3 }),
  ),
})).node;
const key = fc.oneof(fc.constantFrom('model', 'messages', 'tools', 'm', '__proto__', 'a"b'), tricky);
const fields = fc.dictionary(key, fc.oneof(node, fc.array(node, { maxLength: 6 })), { maxKeys: 3 });
/** A body with fields around an array of items, as a conversation's body is. */
const body = fc
  .record({ before: fields, items: fc.array(node, { minLength: 1, maxLength: 6 }), after: fields })
  .map(({ before, items, after }) => {
    const value: Record<string, unknown> = {};
    const define = (name: string, field: unknown) =>
      Object.defineProperty(value, name, {
        value: field,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    for (const [name, field] of Object.entries(before)) define(name, field);
    define('messages', items);
    for (const [name, field] of Object.entries(after)) define(name, field);
    return value;
  });

/** One step from the previous body to the next, as the text a client sends. */
const edit = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    items: fc.array(node, { minLength: 1, maxLength: 3 }),
    pick: fc.nat(),
  }),
  fc.record({ kind: fc.constant('replace' as const), item: node, pick: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('set' as const), key, value: node }),
  fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('new' as const), body }),
  fc.record({ kind: fc.constant('same' as const) }),
);
const texting = fc.record({
  indent: fc.constantFrom(0, 0, 2),
  // A key written again at the end, text cut short, or left as it is.
  raw: fc.constantFrom('none', 'none', 'none', 'duplicate', 'cut'),
  cutAt: fc.nat(),
});

type Body = Record<string, unknown>;
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

function applyEdit(previous: Body, step: Edit): Body {
  const next: Body = JSON.parse(JSON.stringify(previous));
  const keys = Object.keys(next);
  const arrays = keys.filter((name) => Array.isArray(next[name]));
  switch (step.kind) {
    case 'append': {
      const name = arrays[step.pick % Math.max(1, arrays.length)];
      if (name !== undefined) (next[name] as unknown[]).push(...step.items);
      else next.messages = step.items;
      return next;
    }
    case 'replace': {
      const name = arrays[step.pick % Math.max(1, arrays.length)];
      const list = name === undefined ? undefined : (next[name] as unknown[]);
      if (list && list.length > 0) list[step.at % list.length] = step.item;
      return next;
    }
    case 'set':
      Object.defineProperty(next, step.key, {
        value: step.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return next;
    case 'drop': {
      const name = keys[step.pick % Math.max(1, keys.length)];
      if (name !== undefined) delete next[name];
      return next;
    }
    case 'new':
      return step.body;
    default:
      return next;
  }
}

function textOf(value: Body, { indent, raw, cutAt }: { indent: number; raw: string; cutAt: number }): string {
  const text = JSON.stringify(value, null, indent);
  const first = Object.keys(value)[0];
  if (raw === 'duplicate' && first !== undefined) return `${text.slice(0, -1)},${JSON.stringify(first)}:0}`;
  if (raw === 'cut') return text.slice(0, cutAt % Math.max(1, text.length));
  return text;
}

/**
 * Holds a read to what `JSON.parse` says of `text`, or to the depth `excess` when there is one;
 * whether the read took part of the body as read before.
 */
function expectAsParsed(
  read: JsonTextRead,
  text: string,
  excess: JsonDepthExcess | undefined,
  units: number,
): boolean {
  if (excess) {
    expect(read).toEqual({ kind: 'too_deep', excess });
    return false;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    expect(read.kind).toBe('not_json');
    return false;
  }
  if (read.kind !== 'value') throw new Error(`expected a value, got ${read.kind}`);
  expect(JSON.stringify(read.value)).toBe(JSON.stringify(parsed));
  expect(read.value).toStrictEqual(parsed);
  expect(read.reused).toBeLessThanOrEqual(units);
  return read.reused > 0;
}

describe('JsonTextMemo', () => {
  it('reads every text as JSON.parse does (value, key order, depth refusals, errors), from wherever it parts', () => {
    let reusing = 0;
    fc.assert(
      fc.property(
        body,
        fc.array(fc.tuple(edit, texting), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 2, max: 8 }),
        (start, steps, maxDepth) => {
          const memo = new JsonTextMemo({ minChars: 1, maxDepth, maxTexts: 4, maxChars: 4_000 });
          let current: Body = start;
          for (const [step, how] of steps) {
            current = applyEdit(current, step);
            const text = textOf(current, how);
            const read = memo.read(text);
            if (expectAsParsed(read, text, jsonTextDepthExcess(text, maxDepth), text.length)) reusing++;
            // What a caller does to the body's own fields does not reach a later read.
            if (
              read.kind === 'value' &&
              typeof read.value === 'object' &&
              read.value !== null &&
              !Array.isArray(read.value)
            ) {
              const value = read.value as Record<string, unknown>;
              for (const name of Object.keys(value)) {
                const field = value[name];
                if (Array.isArray(field)) field.push('changed by the caller');
                else if (typeof field === 'object' && field !== null)
                  (field as Record<string, unknown>).changed = 1;
              }
            }
          }
          expect(memo.size).toBeLessThanOrEqual(4);
          expect(memo.chars).toBeLessThanOrEqual(4_000);
        },
      ),
      { numRuns: 400 },
    );
    // The runs read texts from where they part, not only whole.
    expect(reusing).toBeGreaterThan(25);
  });

  it('reads every body given as bytes as JSON.parse reads their UTF-8 text, with offsets in bytes', () => {
    let reusing = 0;
    fc.assert(
      fc.property(
        body,
        fc.array(
          fc.tuple(
            edit,
            texting,
            fc.constantFrom('buffer', 'buffer', 'array'),
            fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.nat(), weight: 1 }),
            // Where plain bytes start in their buffer (the comparison goes eight bytes at a time).
            fc.nat(7),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        fc.integer({ min: 2, max: 8 }),
        (start, steps, maxDepth) => {
          const memo = new JsonTextMemo({ minChars: 1, maxDepth, maxTexts: 4, maxChars: 4_000 });
          let current: Body = start;
          for (const [step, how, kind, badAt, offset] of steps) {
            current = applyEdit(current, step);
            let bytes = Buffer.from(textOf(current, how));
            // Now and then a byte that is not UTF-8, inside a string or not.
            if (badAt !== null) {
              const at = badAt % (bytes.length + 1);
              bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]);
            }
            // What is expected, from the bytes as they are now: bytes read a unit per byte scan as
            // bytes (UTF-8 uses no byte below 0x80 inside a character); the value is their text's.
            const excess = jsonTextDepthExcess(bytes.toString('latin1'), maxDepth);
            const text = bytes.toString('utf8');
            const plain = new Uint8Array(bytes.length + offset).subarray(offset);
            plain.set(bytes);
            const read = memo.read(kind === 'buffer' ? bytes : plain);
            // The caller's bytes are its own: changing them after the read changes no later read.
            bytes.fill(0x20);
            if (expectAsParsed(read, text, excess, bytes.length)) reusing++;
          }
          expect(memo.size).toBeLessThanOrEqual(4);
          expect(memo.chars).toBeLessThanOrEqual(4_000);
        },
      ),
      { numRuns: 400 },
    );
    expect(reusing).toBeGreaterThan(25);
  });
});

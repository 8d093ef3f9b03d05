import { describe, expect, it } from 'vitest';
import { classifyOverflow, NO_MATCH_PATTERN, overflowScanText } from './classify-overflow.js';
import { MAX_SCAN_CHARS, SCAN_HEAD_CHARS } from './scan-text.js';
import { OVERFLOW_KINDS } from './types.js';

const MESSAGE = 'prompt is too long: 210000 tokens > 200000 maximum';
const MEGABYTE = 1 << 20;

/** Deterministic pseudo-random bytes (xorshift32): core tests take no randomness from the clock. */
function garbage(length: number, seed = 0x9e3779b9): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed;
  for (let index = 0; index < length; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = state & 0xff;
  }
  return bytes;
}

describe('classifyOverflow on hostile input', () => {
  it('finds the message at the start or the end of a 1 MB body, and scans no more than the cap', () => {
    const filler = 'lorem ipsum '.repeat(MEGABYTE / 12);
    expect(classifyOverflow({ body: `${MESSAGE} ${filler}` })).toMatchObject({
      kind: 'context',
      input: 210_000,
    });
    expect(classifyOverflow({ body: `${filler} data: ${MESSAGE}` })).toMatchObject({ kind: 'context' });
    expect(overflowScanText({ body: `${MESSAGE} ${filler}` }).length).toBeLessThanOrEqual(MAX_SCAN_CHARS);
  });

  it('does not look in the middle of a 1 MB body', () => {
    const half = 'x'.repeat(MEGABYTE / 2);
    const body = `${half}${MESSAGE}${half}`;
    expect(classifyOverflow({ status: 400, body })).toEqual({
      kind: 'none',
      pattern: NO_MATCH_PATTERN,
      unclassified: true,
    });
    expect(overflowScanText({ body })).not.toContain('prompt is too long');
  });

  it('survives 1 MB of characters that stress regex engines', () => {
    const units = ['a', '9', '1,000', ' ', '\\', '\\u', '(', "'", '"', '\n', '\\n', 'a\n   ', 'data: x\n'];
    for (const unit of [...units, 'context ', 'tokens > ', 'status 4', 'The input (1 tokens) ', '\u2019']) {
      const body = unit.repeat(Math.ceil(MEGABYTE / unit.length));
      expect(OVERFLOW_KINDS).toContain(classifyOverflow({ status: 400, body }).kind);
      expect(overflowScanText({ body }).length).toBeLessThanOrEqual(MAX_SCAN_CHARS);
    }
  });

  it('reads binary garbage as bytes and as a string without throwing', () => {
    const bytes = garbage(MEGABYTE);
    expect(classifyOverflow({ body: bytes }).kind).toBe('none');
    expect(classifyOverflow({ body: String.fromCharCode(...bytes.subarray(0, 65_536)) }).kind).toBe('none');
    expect(classifyOverflow({ body: bytes.buffer }).kind).toBe('none');
  });

  it('handles deeply nested JSON as text and as a parsed value', () => {
    const depth = 100_000;
    const text = `${'{"error":'.repeat(depth)}"${MESSAGE}"${'}'.repeat(depth)}`;
    expect(classifyOverflow({ body: text }).kind).toBe('none');
    let nested: unknown = MESSAGE;
    for (let level = 0; level < depth; level += 1) nested = { error: nested };
    expect(classifyOverflow({ body: nested })).toEqual({ kind: 'none', pattern: NO_MATCH_PATTERN });
    expect(classifyOverflow({ body: { a: { b: { c: { error: { message: MESSAGE } } } } } }).kind).toBe(
      'context',
    );
    expect(classifyOverflow({ body: `${'['.repeat(depth)}${']'.repeat(depth)}` }).kind).toBe('none');
  });

  it('stops on cycles in bodies and in cause chains', () => {
    const body: Record<string, unknown> = { message: 'upstream failed' };
    body.self = body;
    body.list = [body, body];
    expect(classifyOverflow({ body }).kind).toBe('none');
    const first = new Error('first');
    const second = new Error(MESSAGE, { cause: first });
    (first as { cause?: unknown }).cause = second;
    expect(classifyOverflow({ error: first })).toMatchObject({ kind: 'context' });
  });

  it('bounds wide objects and long arrays', () => {
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, index) => [`k${index}`, index]));
    expect(overflowScanText({ body: wide }).length).toBeLessThanOrEqual(MAX_SCAN_CHARS);
    const long = Array.from({ length: 200_000 }, () => 'maximum');
    expect(overflowScanText({ body: long }).length).toBeLessThanOrEqual(MAX_SCAN_CHARS);
    expect(overflowScanText({ body: 'y'.repeat(SCAN_HEAD_CHARS * 4) }).length).toBeLessThanOrEqual(
      MAX_SCAN_CHARS,
    );
  });
});

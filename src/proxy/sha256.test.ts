import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256 } from './sha256.js';

describe('sha256', () => {
  it('is the SHA-256 of the text’s UTF-8, as hex or base64', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(sha256(text)).toBe(createHash('sha256').update(text).digest('hex'));
        expect(sha256(text, 'base64')).toBe(createHash('sha256').update(text).digest('base64'));
      }),
    );
  });
});

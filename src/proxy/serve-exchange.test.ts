import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTarget } from './serve-exchange.js';

/** The request target as the URL parser reads it, or `undefined` when it cannot. */
function byUrl(raw: string): { pathname: string; search: string } | undefined {
  try {
    const { pathname, search } = new URL(raw, 'http://proxy');
    return { pathname, search };
  } catch {
    return undefined;
  }
}

describe('parseTarget', () => {
  it('reads every target as the URL parser does, plain paths without it', () => {
    const piece = fc.constantFrom(
      '/',
      '.',
      '..',
      ':',
      '-',
      '_',
      '~',
      'v1',
      'chat',
      '%2e',
      '%zz',
      '?',
      '=',
      '\\',
      '#',
      ' ',
      'é',
      '[',
    );
    const target = fc.array(piece, { maxLength: 12 }).map((pieces) => `/${pieces.join('')}`);
    fc.assert(
      fc.property(fc.oneof(target, fc.string()), (raw) => {
        expect(parseTarget(raw)).toEqual(byUrl(raw));
      }),
      { numRuns: 2_000 },
    );
    for (const raw of [
      '/v1/chat/completions',
      '/v1beta/models/gemini-1.5-pro:streamGenerateContent',
      '/v1/../v1/chat/completions',
      '/v1/./x',
      '//host/x',
      '/v1/chat/completions?x=1',
    ])
      expect(parseTarget(raw)).toEqual(byUrl(raw));
  });
});

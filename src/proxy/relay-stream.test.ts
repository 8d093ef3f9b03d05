import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventText } from './relay-stream.js';

describe('EventText', () => {
  it('decodes a stream cut anywhere as TextDecoder decodes it whole, its byte-order mark dropped', () => {
    const text = fc.string({
      unit: fc.constantFrom('d', 'a', ':', '\n', 'é', '€', '😀', '\ufeff', '\ud800'),
    });
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.oneof(text, fc.uint8Array({ maxLength: 16 })),
        fc.array(fc.nat(), { maxLength: 6 }),
        (bom, body, cuts) => {
          // Text, or bytes that need not be UTF-8.
          const bytes = Buffer.concat([
            Buffer.from(bom ? '\ufeff' : ''),
            typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body),
          ]);
          const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const decoder = new EventText();
          let out = '';
          let from = 0;
          for (const cut of [...at, bytes.length]) {
            out += decoder.write(bytes.subarray(from, cut));
            from = cut;
          }
          out += decoder.end();
          expect(out).toBe(new TextDecoder().decode(bytes));
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameData } from './open-conversation-driver.js';

/** JSON text of a value with every object's keys sorted: equal exactly when the data is. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

describe('sameData', () => {
  it('agrees with comparing JSON texts whose keys are sorted', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(sameData(a, JSON.parse(JSON.stringify(a)))).toBe(true);
        expect(sameData(a, b)).toBe(canonical(a) === canonical(b));
      }),
    );
  });

  it('sees a changed, added or removed field, and skips fields set to undefined', () => {
    const stored = { driver: { manager: { anchor: { messages: 16, digest: 'd' }, appendRate: 0 } } };
    expect(
      sameData({ driver: { manager: { appendRate: 0, anchor: { digest: 'd', messages: 16 } } } }, stored),
    ).toBe(true);
    expect(
      sameData({ driver: { manager: { anchor: { messages: 17, digest: 'd' }, appendRate: 0 } } }, stored),
    ).toBe(false);
    expect(sameData({ driver: { manager: { anchor: { messages: 16, digest: 'd' } } } }, stored)).toBe(false);
    expect(
      sameData(
        { driver: { manager: { anchor: { messages: 16, digest: 'd' }, appendRate: 0, cut: 1 } } },
        stored,
      ),
    ).toBe(false);
    expect(
      sameData(
        { driver: { manager: { anchor: { messages: 16, digest: 'd' }, appendRate: 0, cut: undefined } } },
        stored,
      ),
    ).toBe(true);
    expect(sameData([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(sameData([[[1]]], [[[1]]], 2)).toBe(false);
  });
});

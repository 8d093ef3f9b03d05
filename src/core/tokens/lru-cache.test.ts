import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruCache } from './lru-cache.js';

describe('LruCache', () => {
  it('forgets the least recently used entry first', () => {
    const cache = new LruCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('keeps no entry heavier than its whole weight bound', () => {
    const cache = new LruCache<string, number>({ maxEntries: 10, maxWeight: 5, weigh: (key) => key.length });
    cache.set('abcdef', 1);
    expect(cache.size).toBe(0);
    expect(cache.weight).toBe(0);
  });

  it('stays within both bounds and keeps the newest entry, whatever is stored', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.integer()), { maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 60 }),
        (entries, maxEntries, maxWeight) => {
          const cache = new LruCache<string, number>({
            maxEntries,
            maxWeight,
            weigh: (key) => key.length + 1,
          });
          for (const [key, value] of entries) {
            cache.set(key, value);
            expect(cache.size).toBeLessThanOrEqual(maxEntries);
            expect(cache.weight).toBeLessThanOrEqual(maxWeight);
            if (key.length + 1 <= maxWeight) expect(cache.get(key)).toBe(value);
          }
        },
      ),
    );
  });

  it('refuses a bound below one entry', () => {
    expect(() => new LruCache({ maxEntries: 0 })).toThrow(RangeError);
  });
});

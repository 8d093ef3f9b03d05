import { describe, expect, it } from 'vitest';
import { faultFor, parseFaults } from './faults.js';

describe('faultFor', () => {
  it('fires on the listed chat request numbers only', () => {
    const rules = [{ kind: 'rate-limit' as const, requests: [2, 4] }];
    expect([1, 2, 3, 4].map((n) => faultFor(rules, { requestNumber: n, seed: 0 })?.kind)).toEqual([
      undefined,
      'rate-limit',
      undefined,
      'rate-limit',
    ]);
  });

  it('draws random faults from the seed and the request number, the same on every run', () => {
    const rules = [{ kind: 'server-error' as const, probability: 0.3 }];
    const run = (seed: number) =>
      Array.from({ length: 200 }, (_, n) => faultFor(rules, { requestNumber: n + 1, seed }) !== undefined);
    const first = run(7);
    expect(run(7)).toEqual(first);
    expect(run(8)).not.toEqual(first);
    const rate = first.filter(Boolean).length / first.length;
    expect(rate).toBeGreaterThan(0.15);
    expect(rate).toBeLessThan(0.45);
  });

  it('takes the first matching rule', () => {
    const rules = [
      { kind: 'truncate' as const, requests: [1] },
      { kind: 'stream-cut' as const, probability: 1 },
    ];
    expect(faultFor(rules, { requestNumber: 1, seed: 0 })?.kind).toBe('truncate');
    expect(faultFor(rules, { requestNumber: 2, seed: 0 })?.kind).toBe('stream-cut');
  });
});

describe('parseFaults', () => {
  it('accepts valid rules and names the path of a wrong field', () => {
    expect(parseFaults([{ kind: 'slow-first-byte', requests: [1], delayMs: 50 }])).toHaveLength(1);
    expect(() => parseFaults([{ kind: 'explode', requests: [1] }])).toThrow('faults[0].kind must be one of');
    expect(() => parseFaults([{ kind: 'truncate' }])).toThrow('faults[0] needs "requests" or "probability"');
    expect(() => parseFaults([{ kind: 'truncate', requests: [0] }])).toThrow('faults[0].requests');
    expect(() => parseFaults([{ kind: 'truncate', probability: 2 }])).toThrow('faults[0].probability');
  });
});

import { describe, expect, it } from 'vitest';
import { codingSession } from '../../../test/support/compaction-fixtures.js';
import { createEstimator, EstimateCache } from '../tokens/index.js';
import type { Message } from '../transcript/index.js';
import { validateCompaction } from './validate-compaction.js';

const cache = new EstimateCache(createEstimator({ family: 'o200k' }));
const estimate = (messages: readonly Message[]) => cache.messages(messages).total;
const before = codingSession({ turns: 6 });
const summary: Message = {
  role: 'user',
  content: '[compacted #1: 10 earlier messages summarized] Goal: fix it.',
};
const compacted = [...before.slice(0, 2), summary, ...before.slice(-3)];
const check = (after: readonly Message[], budget = 100_000) =>
  validateCompaction({ before, after, budget, estimate });

describe('validateCompaction', () => {
  it('accepts a smaller transcript that pairs and fits', () => {
    expect(check(compacted)).toEqual({ ok: true, estimate: estimate(compacted) });
  });

  it('rejects a result with no conversation left as empty', () => {
    expect(check([before[0] as Message])).toMatchObject({ ok: false, code: 'empty' });
    expect(check([])).toMatchObject({ ok: false, code: 'empty' });
  });

  it('rejects an unchanged transcript as a no-op, copies included', () => {
    expect(check(before)).toMatchObject({ ok: false, code: 'no_op' });
    expect(check(structuredClone(before))).toMatchObject({ ok: false, code: 'no_op' });
  });

  it('rejects a result that orphans a tool result as broken pairing', () => {
    const orphan = [...before.slice(0, 2), summary, ...before.slice(-2)];
    expect(check(orphan)).toMatchObject({ ok: false, code: 'broken_pairing' });
  });

  it('rejects a result larger than the original', () => {
    const bloated: Message = { role: 'user', content: 'summary '.repeat(20_000) };
    expect(check([...before.slice(0, 2), bloated, ...before.slice(-3)])).toMatchObject({
      ok: false,
      code: 'larger',
    });
  });

  it('rejects a smaller result that is still over the budget, with its estimate for the next step', () => {
    const result = check(compacted, 100);
    expect(result).toMatchObject({ ok: false, code: 'over_budget', estimate: estimate(compacted) });
  });
});

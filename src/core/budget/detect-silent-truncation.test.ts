import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import {
  detectSilentTruncation,
  hasUncountableContent,
  MAX_OVERCOUNT_RATIO,
  silentTruncationNotice,
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

  it('flags a report below the fewest tokens the request could take and learns what the server kept', () => {
    const check = detectSilentTruncation({ reported: 4_096, raw: 40_000 });
    expect(check).toEqual({ truncated: true, reported: 4_096, expectedAtLeast: 10_000, window: 4_096 });
  });

  it('learns a known num_ctx rather than the kept count', () => {
    expect(detectSilentTruncation({ reported: 3_500, raw: 40_000, knownWindow: 4_096 }).window).toBe(4_096);
    // A known window smaller than what was kept is not the window that cut it.
    expect(detectSilentTruncation({ reported: 3_500, raw: 40_000, knownWindow: 2_048 }).window).toBe(3_500);
  });

  it('flags a prompt that grew by tool results but was reported smaller than before', () => {
    const check = detectSilentTruncation({
      reported: 3_100,
      anchor: { reported: 3_800, appendedRaw: 2_400 },
    });
    expect(check.truncated).toBe(true);
    expect(check.expectedAtLeast).toBe(3_800 + 2_400 / MAX_OVERCOUNT_RATIO);
  });

  it('allows a small drift between consecutive renders of the same prefix', () => {
    expect(
      detectSilentTruncation({ reported: 3_790, anchor: { reported: 3_800, appendedRaw: 100 } }).truncated,
    ).toBe(false);
    expect(
      detectSilentTruncation({ reported: 4_400, anchor: { reported: 3_800, appendedRaw: 2_400 } }),
    ).toEqual({
      truncated: false,
      reported: 4_400,
      expectedAtLeast: 4_400,
    });
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
    const check = detectSilentTruncation({ reported: 4_096, raw: 40_000 });
    const notice = silentTruncationNotice({ check, model: 'qwen2.5:7b', learned: true });
    expect(notice).toMatchObject({ code: 'silent_truncation', level: 'warning', window: 4_096 });
    expect(notice.message).toMatch(/qwen2\.5:7b silently truncated.*4096 prompt tokens.*at least 10000/);
    expect(notice.message).toMatch(/num_ctx/);
    expect(silentTruncationNotice({ check, learned: false }).window).toBeUndefined();
  });
});

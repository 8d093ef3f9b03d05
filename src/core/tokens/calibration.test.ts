import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyCalibration,
  CALIBRATION_WINDOW,
  type Calibration,
  type CalibrationSample,
  calibratedLowerBound,
  calibrationsAgree,
  createCalibration,
  ESTIMATE_OVERCOUNT_CEILING,
  observeCalibration,
  parseCalibration,
  raiseCalibration,
  scalarFactor,
} from './calibration.js';
import type { TokenizerCheck } from './tokenizer-check.js';

describe('calibration', () => {
  it('starts at the raw estimate, with the over-count ceiling as its lower bound', () => {
    const fresh = createCalibration();
    expect(applyCalibration(fresh, 1_000)).toBe(1_000);
    expect(calibratedLowerBound(fresh, 1_000)).toBe(Math.floor(1_000 / ESTIMATE_OVERCOUNT_CEILING));
  });

  it('comes down to a high estimate’s real ratio after one report, 10% above it', () => {
    const one = observeCalibration(createCalibration(), { reported: 600, raw: 1_000 });
    expect(scalarFactor(one)).toBeCloseTo(0.66, 10);
    expect(applyCalibration(one, 1_000)).toBe(660);
  });

  it('narrows its margin as reports agree, and keeps it as wide as their spread', () => {
    let agreeing = createCalibration();
    for (let index = 0; index < 9; index++)
      agreeing = observeCalibration(agreeing, { reported: 600, raw: 1_000 });
    expect(scalarFactor(agreeing)).toBeCloseTo(0.6 * (1 + 0.1 / 3), 10);
    const spread = observeCalibration(
      observeCalibration(createCalibration(), { reported: 500, raw: 1_000 }),
      {
        reported: 700,
        raw: 1_000,
      },
    );
    // One factor fitted to both (0.6), raised to cover the larger, by a margin as wide as their spread.
    expect(applyCalibration(spread, 1_000)).toBeGreaterThanOrEqual(700);
    expect(calibratedLowerBound(spread, 1_000)).toBeLessThanOrEqual(500);
  });

  it('tells text from template overhead when reports mix them differently', () => {
    // Small requests are mostly overhead (estimated at twice what the template takes); large ones
    // mostly text (estimated 10% high). One factor from the small ones alone would under-count a paste.
    const truth = ({ text, overhead }: { text: number; overhead: number }) =>
      Math.round(text * 0.9 + overhead * 0.5);
    let calibration = createCalibration();
    for (const raw of [
      { text: 200, overhead: 400 },
      { text: 400, overhead: 420 },
      { text: 3_000, overhead: 450 },
      { text: 6_000, overhead: 480 },
    ])
      calibration = observeCalibration(calibration, { reported: truth(raw), raw });
    expect(calibration.text).toBeGreaterThanOrEqual(0.9);
    expect(calibration.text).toBeLessThan(1);
    expect(calibration.overhead).toBeLessThan(0.6);
    const paste = { text: 40_000, overhead: 500 };
    expect(applyCalibration(calibration, paste)).toBeGreaterThanOrEqual(truth(paste));
    expect(applyCalibration(calibration, paste)).toBeLessThan(truth(paste) * 1.1);
  });

  it('forgets reports older than its window', () => {
    let calibration = observeCalibration(createCalibration(), { reported: 3_000, raw: 1_000 });
    for (let index = 0; index < CALIBRATION_WINDOW; index++)
      calibration = observeCalibration(calibration, { reported: 600, raw: 1_000 });
    expect(scalarFactor(calibration)).toBeLessThan(1);
    expect(calibration.observations).toBe(CALIBRATION_WINDOW + 1);
  });

  it('is raised, never lowered, by a count stated for a rejected request', () => {
    const one = observeCalibration(createCalibration(), { reported: 600, raw: 1_000 });
    expect(raiseCalibration(one, { reported: 500, raw: 1_000 })).toBe(one);
    const raised = raiseCalibration(one, { reported: 900, raw: 1_000 });
    expect(applyCalibration(raised, 1_000)).toBeGreaterThanOrEqual(900);
    expect(scalarFactor(raised)).toBeGreaterThanOrEqual(scalarFactor(one));
  });

  it('never estimates a recently observed request below its reported count, nor its lower bound above it', () => {
    const report = fc.record({
      text: fc.integer({ min: 0, max: 100_000 }),
      overhead: fc.integer({ min: 0, max: 5_000 }),
      textRatio: fc.double({ min: 0.4, max: 1.1, noNaN: true }),
      overheadRatio: fc.double({ min: 0.3, max: 1.1, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(report, { minLength: 1, maxLength: 30 }), (reports) => {
        let calibration = createCalibration();
        const seen: Array<{ raw: { text: number; overhead: number }; reported: number }> = [];
        for (const { text, overhead, textRatio, overheadRatio } of reports) {
          if (text + overhead === 0) continue;
          const reported = Math.max(1, Math.round(text * textRatio + overhead * overheadRatio));
          const next = observeCalibration(calibration, { reported, raw: { text, overhead } });
          if (next !== calibration) seen.push({ raw: { text, overhead }, reported });
          calibration = next;
        }
        for (const { raw, reported } of seen.slice(-CALIBRATION_WINDOW)) {
          expect(applyCalibration(calibration, raw)).toBeGreaterThanOrEqual(reported - 1);
          expect(calibratedLowerBound(calibration, raw)).toBeLessThanOrEqual(reported + 1);
        }
      }),
    );
  });

  it('covers every recent report when a class factor raised by the margin would pass the bound', () => {
    // Found by the property above: the least-squares overhead factor, raised to cover the first
    // report, went past 4 and was cut back, leaving that report estimated 34 for 36 reported.
    let calibration = createCalibration();
    const reports = [
      { raw: { text: 31, overhead: 4 }, reported: 36 },
      { raw: { text: 55, overhead: 9 }, reported: 52 },
      { raw: { text: 357, overhead: 34 }, reported: 153 },
      { raw: { text: 13, overhead: 6 }, reported: 10 },
    ];
    for (const report of reports) calibration = observeCalibration(calibration, report);
    for (const { raw, reported } of reports)
      expect(applyCalibration(calibration, raw)).toBeGreaterThanOrEqual(reported);
  });

  it('reads back what it wrote, and refuses what it did not', () => {
    const one = observeCalibration(createCalibration(), { reported: 600, raw: { text: 800, overhead: 200 } });
    expect(parseCalibration(JSON.parse(JSON.stringify(one)))).toEqual(one);
    expect(parseCalibration({ factor: 'high' })).toBeUndefined();
    expect(
      parseCalibration({ samples: [{ text: -1, overhead: 0, reported: 3 }], observations: 1 }),
    ).toBeUndefined();
  });

  it('agrees with itself after a report that repeats its window, and not after one that teaches', () => {
    const raw = { text: 800, overhead: 200 };
    let calibration = createCalibration();
    for (let index = 0; index < CALIBRATION_WINDOW; index++)
      calibration = observeCalibration(calibration, { reported: 600, raw });
    const again = observeCalibration(calibration, { reported: 600, raw });
    expect(again.observations).toBe(calibration.observations + 1);
    expect(calibrationsAgree(again, calibration)).toBe(true);
    expect(calibrationsAgree(parseCalibration(JSON.parse(JSON.stringify(again))) ?? again, calibration)).toBe(
      true,
    );
    expect(calibrationsAgree(observeCalibration(calibration, { reported: 650, raw }), calibration)).toBe(
      false,
    );
    // The first report, and the report that lets the classes be told apart, are never skipped.
    const first = observeCalibration(createCalibration(), { reported: 600, raw });
    expect(calibrationsAgree(first, createCalibration())).toBe(false);
    const three = [1, 2, 3].reduce((c) => observeCalibration(c, { reported: 600, raw }), createCalibration());
    const four = observeCalibration(three, { reported: 600, raw });
    expect(calibrationsAgree(four, three)).toBe(false);
  });

  it('agrees exactly when the factors, the window’s reports, the tokenizer check and the thresholds read do', () => {
    // The reference: every figure the comparison reads, serialized.
    const key = (calibration: Calibration) =>
      JSON.stringify([
        calibration.text,
        calibration.overhead,
        calibration.textLow,
        calibration.overheadLow,
        calibration.samples.map((sample) => [sample.text, sample.overhead, sample.reported]),
        calibration.tokenizer ?? null,
        Math.min(calibration.observations, 4),
      ]);
    const report = fc.record({
      reported: fc.integer({ min: 550, max: 620 }),
      text: fc.constantFrom(800, 900),
    });
    const tokenizer = fc.option(
      fc.record({
        status: fc.constantFrom('unverified' as const, 'verified' as const),
        reports: fc.integer({ min: 0, max: 3 }),
        worst: fc.constantFrom(0, 0.01),
      }),
      { nil: undefined },
    );
    const calibrationOf = (reports: Array<{ reported: number; text: number }>, check?: TokenizerCheck) => {
      const observed = reports.reduce(
        (calibration, { reported, text }) =>
          observeCalibration(calibration, { reported, raw: { text, overhead: 1_000 - text } }),
        createCalibration(),
      );
      return check === undefined ? observed : { ...observed, tokenizer: check };
    };
    fc.assert(
      fc.property(
        fc.array(report, { maxLength: 20 }),
        fc.array(report, { maxLength: 3 }),
        fc.boolean(),
        tokenizer,
        tokenizer,
        (shared, own, same, firstCheck, secondCheck) => {
          const a = calibrationOf(shared, firstCheck);
          const b = calibrationOf(same ? shared : [...shared, ...own], same ? firstCheck : secondCheck);
          expect(calibrationsAgree(a, b)).toBe(key(a) === key(b));
        },
      ),
    );
  });

  it('checks a calibration once: parsed again, the checked one is itself, frozen; what was given is left as it was', () => {
    const raw = { text: 800, overhead: 200 };
    const stored = JSON.parse(
      JSON.stringify(observeCalibration(createCalibration(), { reported: 600, raw })),
    ) as Calibration;
    const checked = parseCalibration(stored) as Calibration;
    expect(parseCalibration(checked)).toBe(checked);
    expect(Object.isFrozen(checked) && Object.isFrozen(checked.samples[0])).toBe(true);
    expect(() => {
      (checked.samples as CalibrationSample[]).push({ text: 1, overhead: 1, reported: 1 });
    }).toThrow(TypeError);
    expect(Object.isFrozen(stored) || Object.isFrozen(stored.samples[0])).toBe(false);
    // A plain object with the same figures is checked again, and a bad one still refused.
    expect(parseCalibration({ ...checked })).not.toBe(checked);
    expect(parseCalibration({ ...checked, observations: -1 })).toBeUndefined();
  });
});

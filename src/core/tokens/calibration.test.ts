import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyCalibration,
  CALIBRATION_WINDOW,
  calibratedLowerBound,
  createCalibration,
  ESTIMATE_OVERCOUNT_CEILING,
  MIN_MARGIN,
  observeCalibration,
  parseCalibration,
  raiseCalibration,
} from './calibration.js';

describe('calibration', () => {
  it('starts at the raw estimate, with the over-count ceiling as its lower bound', () => {
    const fresh = createCalibration();
    expect(applyCalibration(fresh, 1_000)).toBe(1_000);
    expect(calibratedLowerBound(fresh, 1_000)).toBe(Math.floor(1_000 / ESTIMATE_OVERCOUNT_CEILING));
  });

  it('comes down to a high estimate’s real ratio after one report, 10% above it', () => {
    const one = observeCalibration(createCalibration(), { reported: 600, raw: 1_000 });
    expect(one.factor).toBeCloseTo(0.66, 10);
    expect(applyCalibration(one, 1_000)).toBe(660);
  });

  it('narrows its margin as reports agree, and keeps it as wide as their spread', () => {
    let agreeing = createCalibration();
    for (let index = 0; index < 9; index++)
      agreeing = observeCalibration(agreeing, { reported: 600, raw: 1_000 });
    expect(agreeing.factor).toBeCloseTo(0.6 * (1 + 0.1 / 3), 10);
    const spread = observeCalibration(
      observeCalibration(createCalibration(), { reported: 500, raw: 1_000 }),
      {
        reported: 700,
        raw: 1_000,
      },
    );
    expect(spread.factor).toBeCloseTo(0.7 * (1 + 2 / 7), 10);
  });

  it('forgets reports older than its window', () => {
    let calibration = observeCalibration(createCalibration(), { reported: 3_000, raw: 1_000 });
    for (let index = 0; index < CALIBRATION_WINDOW; index++)
      calibration = observeCalibration(calibration, { reported: 600, raw: 1_000 });
    expect(calibration.factor).toBeLessThan(1);
    expect(calibration.observations).toBe(CALIBRATION_WINDOW + 1);
  });

  it('is raised, never lowered, by a count stated for a rejected request', () => {
    const one = observeCalibration(createCalibration(), { reported: 600, raw: 1_000 });
    expect(raiseCalibration(one, { reported: 500, raw: 1_000 })).toBe(one);
    expect(
      applyCalibration(raiseCalibration(one, { reported: 900, raw: 1_000 }), 1_000),
    ).toBeGreaterThanOrEqual(900);
  });

  it('never estimates a recently observed request below its reported count, nor above it by more than the margin allows', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            raw: fc.integer({ min: 100, max: 100_000 }),
            ratio: fc.double({ min: 0.3, max: 1.2, noNaN: true }),
          }),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        (reports) => {
          let calibration = createCalibration();
          for (const { raw, ratio } of reports)
            calibration = observeCalibration(calibration, {
              reported: Math.max(1, Math.round(raw * ratio)),
              raw,
            });
          for (const { raw, ratio } of reports.slice(-CALIBRATION_WINDOW)) {
            const reported = Math.max(1, Math.round(raw * ratio));
            expect(applyCalibration(calibration, raw)).toBeGreaterThanOrEqual(reported);
            expect(calibratedLowerBound(calibration, raw)).toBeLessThanOrEqual(reported);
          }
          expect(calibration.factor).toBeGreaterThanOrEqual(
            Math.max(...calibration.ratios) * (1 + MIN_MARGIN) - 1e-12,
          );
        },
      ),
    );
  });

  it('reads back what it wrote, and refuses what it did not', () => {
    const one = observeCalibration(createCalibration(), { reported: 600, raw: 1_000 });
    expect(parseCalibration(JSON.parse(JSON.stringify(one)))).toEqual(one);
    expect(parseCalibration({ factor: 'high' })).toBeUndefined();
    expect(parseCalibration({ ratios: [-1], observations: 1 })).toBeUndefined();
  });
});

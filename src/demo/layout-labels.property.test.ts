import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Box, type LabelWish, layoutLabels, overlaps } from './layout-labels.js';

const AREA: Box = { x: 0, y: 0, width: 400, height: 200 };

const wish = fc.record({
  width: fc.integer({ min: 4, max: 300 }),
  height: fc.integer({ min: 6, max: 30 }),
  x: fc.integer({ min: -50, max: 420 }),
  other: fc.integer({ min: -50, max: 420 }),
  y: fc.integer({ min: -40, max: 240 }),
});
const obstacle = fc.record({
  x: fc.integer({ min: 0, max: 380 }),
  y: fc.integer({ min: 0, max: 180 }),
  width: fc.integer({ min: 1, max: 120 }),
  height: fc.integer({ min: 1, max: 40 }),
});

function wishes(
  specs: Array<{ width: number; height: number; x: number; other: number; y: number }>,
): LabelWish[] {
  return specs.map((spec, index) => ({
    id: `label-${index}`,
    width: spec.width,
    height: spec.height,
    xs: [spec.x, spec.other],
    y: spec.y,
  }));
}

describe('layoutLabels', () => {
  it('never lets two labels, or a label and an obstacle, overlap', () => {
    fc.assert(
      fc.property(
        fc.array(wish, { maxLength: 40 }),
        fc.array(obstacle, { maxLength: 8 }),
        fc.integer({ min: 0, max: 6 }),
        (specs, obstacles, gap) => {
          const placed = layoutLabels({ labels: wishes(specs), obstacles, area: AREA, gap });
          expect(placed.map((label) => label.id)).toEqual(specs.map((_, index) => `label-${index}`));
          for (const [index, label] of placed.entries()) {
            expect(label.box.width).toBe(specs[index]?.width);
            for (const other of placed.slice(index + 1))
              expect(overlaps(label.box, other.box, gap)).toBe(false);
            for (const box of obstacles) expect(overlaps(label.box, box, gap)).toBe(false);
          }
        },
      ),
    );
  });

  it('leaves a label where it wished to be when that spot is free', () => {
    fc.assert(
      fc.property(wish, (spec) => {
        fc.pre(spec.x >= 0 && spec.y >= 0 && spec.x + spec.width <= 400 && spec.y + spec.height <= 200);
        const [placed] = layoutLabels({ labels: wishes([spec]), area: AREA });
        expect(placed?.box).toEqual({ x: spec.x, y: spec.y, width: spec.width, height: spec.height });
        expect(placed?.moved).toBe(false);
      }),
    );
  });

  it('slides a label that would cover another up by one step, and says it moved', () => {
    const label = { width: 50, height: 10, xs: [10], y: 50 };
    const [first, second] = layoutLabels({
      labels: [
        { id: 'first', ...label },
        { id: 'second', ...label },
      ],
      area: AREA,
      gap: 2,
    });
    expect(first?.box.y).toBe(50);
    expect(second?.box).toEqual({ x: 10, y: 38, width: 50, height: 10 });
    expect(second?.moved).toBe(true);
  });

  it('stacks a label that finds no room in the area below everything placed', () => {
    const [, stacked] = layoutLabels({
      labels: [
        { id: 'fills', width: 400, height: 200, xs: [0], y: 0 },
        { id: 'stacked', width: 40, height: 10, xs: [5], y: 20 },
      ],
      area: AREA,
      gap: 2,
    });
    expect(stacked?.box).toEqual({ x: 5, y: 202, width: 40, height: 10 });
  });
});

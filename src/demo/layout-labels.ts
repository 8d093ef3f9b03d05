/**
 * @module
 * The layout pass of the report's chart labels: each label wants a spot beside what it names; the
 * pass takes the first free one, sliding it up or down (and to the other side) past labels already
 * placed and past obstacles, and stacks what finds no room inside the area below it. No two placed
 * labels overlap, whatever the input.
 */

/** A rectangle by its top-left corner. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A label to place: its size and where it would like to be. */
export interface LabelWish {
  id: string;
  width: number;
  height: number;
  /** Left edges to try, in order of preference (one side of the anchor, then the other). */
  xs: readonly number[];
  /** The top edge it wants; it slides from there in steps of its height. */
  y: number;
  /** Where this label may go, when not the layout's area. */
  area?: Box;
}

/** Where a label went. */
export interface PlacedLabel {
  id: string;
  box: Box;
  /** It is not where it wished to be (the chart draws a leader line to its anchor). */
  moved: boolean;
}

/** Options of {@link layoutLabels}. */
export interface LayoutLabelsOptions {
  /** In priority order: earlier labels get the better spots. */
  labels: readonly LabelWish[];
  /** Boxes no label may cover (fixed text, markers). */
  obstacles?: readonly Box[];
  /** Where labels may go; the fallback stacks below it. */
  area: Box;
  /** Space kept between two boxes. */
  gap?: number;
}

/** Whether two boxes come closer than `gap` (touching at exactly `gap` is fine). */
export function overlaps(left: Box, right: Box, gap = 0): boolean {
  return (
    left.x < right.x + right.width + gap &&
    right.x < left.x + left.width + gap &&
    left.y < right.y + right.height + gap &&
    right.y < left.y + left.height + gap
  );
}

const inside = (box: Box, area: Box): boolean =>
  box.x >= area.x &&
  box.y >= area.y &&
  box.x + box.width <= area.x + area.width &&
  box.y + box.height <= area.y + area.height;

/** The vertical offsets to try: 0, then one step up, one down, two up, … as far as the area reaches. */
function slides(wish: LabelWish, area: Box, gap: number): number[] {
  // Far enough to reach every row of the area from wherever the label starts.
  const step = wish.height + gap;
  const reach = Math.ceil((area.height + Math.abs(wish.y - area.y)) / step) + 1;
  const offsets = [0];
  for (let k = 1; k <= reach; k++) offsets.push(-k * step, k * step);
  return offsets;
}

function firstFree(wish: LabelWish, taken: readonly Box[], area: Box, gap: number): Box | undefined {
  for (const offset of slides(wish, area, gap))
    for (const x of wish.xs) {
      const box = { x, y: wish.y + offset, width: wish.width, height: wish.height };
      if (inside(box, area) && !taken.some((other) => overlaps(box, other, gap))) return box;
    }
  return undefined;
}

/**
 * Places every label: the first free candidate inside `area`, else stacked below everything placed
 * so far (the caller grows the drawing to the lowest box).
 *
 * @example
 * const [placed] = layoutLabels({ labels: [{ id: 'a', width: 60, height: 12, xs: [10], y: 5 }], area: { x: 0, y: 0, width: 100, height: 50 } });
 * placed.box; // { x: 10, y: 5, width: 60, height: 12 }
 */
export function layoutLabels({ labels, obstacles = [], area, gap = 2 }: LayoutLabelsOptions): PlacedLabel[] {
  const taken: Box[] = [...obstacles];
  const placed: PlacedLabel[] = [];
  for (const wish of labels) {
    const free = firstFree(wish, taken, wish.area ?? area, gap);
    const lowest = Math.max(area.y + area.height, ...taken.map((box) => box.y + box.height));
    const box = free ?? {
      x: wish.xs[0] ?? area.x,
      y: lowest + gap,
      width: wish.width,
      height: wish.height,
    };
    taken.push(box);
    placed.push({ id: wish.id, box, moved: box.y !== wish.y || box.x !== wish.xs[0] });
  }
  return placed;
}

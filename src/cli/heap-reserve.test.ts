import { getHeapSpaceStatistics } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { reserveHeap } from './heap-reserve.js';

const MB = 1024 * 1024;

/** Bytes in V8's space for large objects (what a collection meanwhile frees elsewhere does not move it). */
function largeObjectBytes(): number {
  return (
    getHeapSpaceStatistics().find((space) => space.space_name === 'large_object_space')?.space_used_size ?? 0
  );
}

describe('reserveHeap', () => {
  afterEach(() => {
    reserveHeap(0);
  });

  it('holds the megabytes asked for in the V8 heap, and lets them go on 0', () => {
    const before = largeObjectBytes();
    expect(reserveHeap(24)).toBe(24 * MB);
    // In the heap V8 counts towards its next major collection, not in a buffer outside it.
    expect(largeObjectBytes() - before).toBeGreaterThanOrEqual(24 * MB);
    expect(reserveHeap(0)).toBe(0);
  });

  it('replaces the reserve held before rather than adding to it', () => {
    expect(reserveHeap(8)).toBe(8 * MB);
    expect(reserveHeap(4)).toBe(4 * MB);
    expect(reserveHeap(-1)).toBe(0);
  });
});

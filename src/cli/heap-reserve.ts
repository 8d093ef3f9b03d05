/**
 * @module
 * Room in the V8 heap for a long-running proxy. V8 sets the point of its next major collection from
 * the heap left live by the last one (a multiple of it), and starts marking as soon as the room left
 * before that point, less the memory outside the heap allocated since (request bodies), is smaller
 * than its young generation. Serving a few conversations, `spillway serve` keeps about 18 MB live,
 * while under load its young generation grows to its full size (requests waiting on the upstream
 * survive minor collections): the room was never enough, and at 16 clients V8 ran up to 15 major
 * collections per 4,000 requests, as often as one every 100 ms, each marking the whole heap on
 * helper threads. A reserve of numbers raises the point without adding work: an array of doubles
 * holds no pointers, so marking it is marking one object.
 */

/** Megabytes `spillway serve` reserves unless `--heap-reserve` says otherwise. */
export const DEFAULT_HEAP_RESERVE_MB = 32;

const DOUBLES_PER_MB = (1024 * 1024) / 8;

let reserve: number[] | undefined;

/**
 * Holds `megabytes` of the V8 heap for the rest of the process, replacing any reserve held before
 * (0 lets it go); returns the bytes now held.
 *
 * @example
 * reserveHeap(32); // 33554432
 */
export function reserveHeap(megabytes: number): number {
  reserve = undefined;
  if (megabytes <= 0) return 0;
  // Filled with a fraction, the array's elements are unboxed doubles (filled with 0 they would be
  // small integers, each a slot the marker visits).
  reserve = new Array<number>(Math.round(megabytes * DOUBLES_PER_MB)).fill(0.5);
  return reserve.length * 8;
}

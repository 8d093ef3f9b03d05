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

import { setFlagsFromString } from 'node:v8';

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

/**
 * How far past the heap left live by a major collection the next one waits, in percent, for a
 * long-running proxy (V8's `--heap-growing-percent`, read at every collection, so it can be set once
 * running). V8 otherwise picks the factor itself, from how fast it marks against how fast the
 * program allocates; it marks the reserve's numbers at once, and a proxy left idle shows it an
 * allocation rate near zero, and its memory reducer shrinks the heap besides: a `spillway serve`
 * idle for half a minute after its start, then loaded at 16 clients, ran 4 to 11 major collections
 * per 1,000 requests (about one every 100 ms) for thousands of requests, where one loaded from its
 * start ran none.
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Makes every major collection leave the heap room to grow by {@link HEAP_GROWING_PERCENT} before the
 * next one, for the rest of the process.
 *
 * @example
 * growHeapSteadily();
 */
export function growHeapSteadily(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * Makes V8 allocate every object in the young generation, for the rest of the process (V8's
 * `--no-allocation-site-pretenuring`). V8 counts, per place in the code that allocates, how many of
 * its objects outlive a young collection; a place whose objects mostly do has them allocated in the
 * old generation from then on, and that choice stays. A proxy's objects live as long as their request:
 * when its first requests wait on something slow (the upstream's counting endpoint, a slow upstream),
 * the places of a request's objects get chosen, and every later request's objects die in the old
 * generation, holding the young objects they point to alive through each young collection until the
 * next major one. A `spillway serve` whose first 16 requests were counted on vLLM's `/tokenize`
 * promoted 7 times the bytes per young collection, ran a major collection every half second and spent
 * a fifth more CPU per request for thousands of requests; with this set, it spent 0.87 times what it
 * spent without, and a proxy whose first requests waited on nothing spent the same.
 */
export function allocateYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}

/** Timing helpers for the benchmarks: warm up, then take the median of repeated runs. */
import { performance } from 'node:perf_hooks';

export interface Timing {
  medianMs: number;
  minMs: number;
  runs: number;
}

/** Runs `work` until `minRuns` runs and `minMs` milliseconds have passed (after `warmup` runs). */
export function time(
  work: () => unknown,
  { warmup = 2, minRuns = 5, minMs = 300 }: { warmup?: number; minRuns?: number; minMs?: number } = {},
): Timing {
  for (let index = 0; index < warmup; index++) work();
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < minRuns || performance.now() - started < minMs) {
    const start = performance.now();
    work();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return {
    medianMs: samples[Math.floor(samples.length / 2)] as number,
    minMs: samples[0] as number,
    runs: samples.length,
  };
}

export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

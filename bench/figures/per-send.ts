/** The per-send benchmark (bench/results/per-send.json) as tables, one per window. */
import type { PerSendMethodResult, PerSendPoint, PerSendWindow } from '../per-send.js';
import { count, fixed, table, times } from './format.js';

export interface PerSendResult {
  clock: string;
  transcript: { messages: number; sends: number; real_tokens: number; tokenizer: string };
  reserve: number;
  windows: PerSendWindow[];
  spillway_per_message: Array<{ window: number; per_message_us: number; intercept_ms: number }>;
}

const last = (method: PerSendMethodResult): PerSendPoint => method.points.at(-1) as PerSendPoint;

function windowTable(entry: PerSendWindow): string {
  const spillway = entry.methods[0] as PerSendMethodResult;
  const rows = entry.methods.map((method) => {
    const end = last(method);
    const valid = method.points.every((point) => point.fits && point.pairing_valid);
    const over = method.points.filter((point) => !point.fits).map((point) => count(point.messages));
    return [
      method.label,
      `${fixed(end.ms, end.ms < 10 ? 2 : 0)} ms`,
      method === spillway ? '1×' : times(end.ms / last(spillway).ms),
      `${count(method.total_ms / 1_000, 1)} s${method.total === 'interpolated' ? ' (interpolated)' : ''}`,
      method === spillway ? '1×' : times(method.total_ms / spillway.total_ms),
      `${count(end.real_tokens)} (${count(end.kept_messages)} messages)`,
      valid ? 'yes' : `no: over the budget at ${over.join(', ')} messages`,
    ];
  });
  return table(
    [
      `window ${count(entry.window)} (budget ${count(entry.budget)})`,
      `per send at ${count(last(spillway).messages)} messages`,
      '× Spillway',
      'all sends',
      '× Spillway',
      'real tokens sent at the end',
      'valid and within budget at every checkpoint',
    ],
    rows,
  );
}

/** Per window: cost per send and over the growth, what was sent, whether it was valid. */
export function perSendTables(result: PerSendResult): string {
  return result.windows.map(windowTable).join('\n\n');
}

/** How Spillway's per-send cost grows with the history. */
export function perSendComplexity(result: PerSendResult): string {
  const fits = result.spillway_per_message
    .map((entry) => `${fixed(entry.per_message_us, 2)} µs per message at ${count(entry.window)}`)
    .join(', ');
  const spillway = result.windows[0]?.methods[0];
  const points = spillway?.points ?? [];
  const series = points.map((point) => `${fixed(point.ms, 2)} ms at ${count(point.messages)}`).join(', ');
  return `Spillway's cost per send against the history held: ${series} (window ${count(result.windows[0]?.window ?? 0)}); a least-squares line over the checkpoints gives ${fits}. A send estimates, checks and indexes only the messages appended since the last one: the transcript walk (pairing, tool-call index, input check) and the running totals of the estimate cache are kept and extended, and the rest of the history is compared by identity, a few nanoseconds a message; what grows with the history beyond that is what a cut costs.`;
}

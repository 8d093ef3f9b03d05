/**
 * bench/results/per-send.html: a self-contained page (inline SVG, no external assets) charting the
 * per-send cost of each method against transcript length, one chart per window, from
 * bench/results/per-send.json.
 */
import { machineOf, type ResultStamp } from './figures/format.js';
import type { PerSendResult } from './figures/per-send.js';
import type { PerSendWindow } from './per-send.js';

const COLORS = ['#1b7f3b', '#5aa469', '#c97a00', '#b3261e'];
const WIDTH = 760;
const HEIGHT = 420;
const MARGIN = { left: 70, right: 20, top: 20, bottom: 50 };

function chart(entry: PerSendWindow): string {
  const values = entry.methods
    .flatMap((method) => method.points.map((point) => point.ms))
    .filter((ms) => ms > 0);
  const minLog = Math.floor(Math.log10(Math.min(...values)));
  const maxLog = Math.ceil(Math.log10(Math.max(...values)));
  const maxMessages = Math.max(
    ...entry.methods.flatMap((method) => method.points.map((point) => point.messages)),
  );
  const x = (messages: number) =>
    MARGIN.left + ((WIDTH - MARGIN.left - MARGIN.right) * messages) / maxMessages;
  const y = (ms: number) =>
    MARGIN.top +
    ((HEIGHT - MARGIN.top - MARGIN.bottom) * (maxLog - Math.log10(Math.max(ms, 10 ** minLog)))) /
      (maxLog - minLog);
  const grid: string[] = [];
  for (let power = minLog; power <= maxLog; power++) {
    const value = 10 ** power;
    grid.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value)}" y2="${y(value)}" stroke="#e3e3e3"/><text x="${MARGIN.left - 8}" y="${y(value) + 4}" text-anchor="end" font-size="11">${value >= 1 ? value : value.toFixed(-power)} ms</text>`,
    );
  }
  for (const point of entry.methods[0]?.points ?? [])
    grid.push(
      `<text x="${x(point.messages)}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle" font-size="11">${point.messages}</text>`,
    );
  const lines = entry.methods.map((method, index) => {
    const color = COLORS[index % COLORS.length];
    const path = method.points
      .map((point, at) => `${at === 0 ? 'M' : 'L'}${x(point.messages).toFixed(1)},${y(point.ms).toFixed(1)}`)
      .join(' ');
    const dots = method.points
      .map((point) => `<circle cx="${x(point.messages)}" cy="${y(point.ms)}" r="3.5" fill="${color}"/>`)
      .join('');
    const legend = `<rect x="${MARGIN.left + 10}" y="${MARGIN.top + 10 + index * 18}" width="12" height="12" fill="${color}"/><text x="${MARGIN.left + 28}" y="${MARGIN.top + 20 + index * 18}" font-size="12">${method.label}</text>`;
    return `<path d="${path}" fill="none" stroke="${color}" stroke-width="2.5"/>${dots}${legend}`;
  });
  return `<h2>Window ${entry.window} (prompt budget ${entry.budget})</h2>
<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="per-send cost, window ${entry.window}">
<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>${grid.join('')}${lines.join('')}
<text x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${HEIGHT - 12}" text-anchor="middle" font-size="12">messages in the transcript</text>
</svg>`;
}

export function perSendReport(result: PerSendResult & ResultStamp): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Spillway benchmarks: per-send cost</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}</style></head>
<body><h1>Per-send cost against transcript length</h1>
<p>CPU time to decide what to send after appending one turn, per method (log scale). ${machineOf(result)}, ${result.date ?? ''}. Made by <code>${result.command ?? 'npm run bench -- per-send'}</code>.</p>
${result.windows.map(chart).join('\n')}
</body></html>
`;
}

/**
 * bench/results/per-send.html: a self-contained page (inline SVG, no external assets) charting the
 * per-send cost of each strategy against transcript length, from bench/results/per-send.json.
 */
import type { PerSendPoint } from './per-send.js';

const SERIES: Array<{ key: keyof PerSendPoint; label: string; color: string }> = [
  { key: 'spillway_ms', label: 'Spillway incremental fit', color: '#1b7f3b' },
  { key: 'json_length_ms', label: 'JSON.stringify length / 4', color: '#7a7a7a' },
  { key: 'langchain_approximate_ms', label: 'LangChain trimMessages, approximate counter', color: '#c97a00' },
  { key: 'langchain_tiktoken_ms', label: 'LangChain trimMessages, js-tiktoken counter', color: '#b3261e' },
];

export function perSendReport(points: readonly PerSendPoint[], meta: { node: string; date: string }): string {
  const width = 760;
  const height = 420;
  const left = 70;
  const bottom = 50;
  const top = 20;
  const right = 20;
  const values = points
    .flatMap((point) => SERIES.map((series) => point[series.key] as number))
    .filter((value) => value > 0);
  const minLog = Math.floor(Math.log10(Math.min(...values)));
  const maxLog = Math.ceil(Math.log10(Math.max(...values)));
  const maxMessages = Math.max(...points.map((point) => point.messages));
  const x = (messages: number) => left + ((width - left - right) * messages) / maxMessages;
  const y = (ms: number) => top + ((height - top - bottom) * (maxLog - Math.log10(ms))) / (maxLog - minLog);
  const grid: string[] = [];
  for (let power = minLog; power <= maxLog; power++) {
    const value = 10 ** power;
    grid.push(
      `<line x1="${left}" x2="${width - right}" y1="${y(value)}" y2="${y(value)}" stroke="#e3e3e3"/><text x="${left - 8}" y="${y(value) + 4}" text-anchor="end" font-size="11">${value >= 1 ? value : value.toFixed(-power)} ms</text>`,
    );
  }
  for (const point of points)
    grid.push(
      `<text x="${x(point.messages)}" y="${height - bottom + 18}" text-anchor="middle" font-size="11">${point.messages}</text>`,
    );
  const lines = SERIES.map((series) => {
    const path = points
      .map(
        (point, index) =>
          `${index === 0 ? 'M' : 'L'}${x(point.messages).toFixed(1)},${y(point[series.key] as number).toFixed(1)}`,
      )
      .join(' ');
    return `<path d="${path}" fill="none" stroke="${series.color}" stroke-width="2.5"/>${points.map((point) => `<circle cx="${x(point.messages)}" cy="${y(point[series.key] as number)}" r="3.5" fill="${series.color}"/>`).join('')}`;
  });
  const legend = SERIES.map(
    (series, index) =>
      `<rect x="${left + 10}" y="${top + 10 + index * 18}" width="12" height="12" fill="${series.color}"/><text x="${left + 28}" y="${top + 20 + index * 18}" font-size="12">${series.label}</text>`,
  );
  const rows = points
    .map(
      (point) =>
        `<tr><td>${point.messages}</td>${SERIES.map((series) => `<td>${point[series.key]}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Spillway benchmarks: per-send cost</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}</style></head>
<body><h1>Per-send cost against transcript length</h1>
<p>Time to decide what to send after appending one turn, per strategy (log scale). Node ${meta.node}, ${meta.date}. Made by <code>npm run bench</code>.</p>
<svg id="per-send-chart" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="per-send cost chart">
<rect width="${width}" height="${height}" fill="#fff"/>${grid.join('')}${lines.join('')}${legend.join('')}
<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle" font-size="12">messages in the transcript</text>
</svg>
<table><tr><th>messages</th>${SERIES.map((series) => `<th>${series.label}</th>`).join('')}</tr>${rows}</table>
</body></html>
`;
}

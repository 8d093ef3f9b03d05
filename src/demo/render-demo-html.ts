/**
 * @module
 * `spillway demo --report FILE.html`: one self-contained page (inline SVG and CSS, no script, no
 * external asset, nothing fetched) charting prompt tokens per turn of both runs against the
 * advertised and the real window, with prunes, compactions and failures marked.
 */
import { backendLine, limitsLines, stuckLine } from './format-demo-summary.js';
import type { DemoResult } from './run-demo.js';
import type { DemoRun } from './run-demo-session.js';

/** The chart's colors (a test looks for them in a screenshot). */
export const CHART_COLORS = {
  plain: '#1f77b4',
  spillway: '#2ca02c',
  realWindow: '#d62728',
  advertised: '#ff7f0e',
  failure: '#d62728',
  prune: '#7f7f7f',
  compaction: '#9467bd',
} as const;

const WIDTH = 960;
const HEIGHT = 440;
const MARGIN = { top: 24, right: 170, bottom: 44, left: 70 };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const count = (value: number): string => value.toLocaleString('en-US');

interface Scale {
  x(turn: number): number;
  y(tokens: number): number;
}

function runSeries(run: DemoRun, scale: Scale, color: string): string {
  const parts: string[] = [];
  const accepted = run.requests.filter((request) => request.accepted);
  const points = accepted.map(
    (request) => `${scale.x(request.turn).toFixed(1)},${scale.y(request.promptTokens).toFixed(1)}`,
  );
  if (points.length > 0)
    parts.push(
      `<polyline class="series ${run.name}" fill="none" stroke="${color}" stroke-width="2.5" points="${points.join(' ')}"/>`,
    );
  for (const request of accepted)
    parts.push(
      `<circle cx="${scale.x(request.turn).toFixed(1)}" cy="${scale.y(request.promptTokens).toFixed(1)}" r="3" fill="${color}"/>`,
    );
  for (const request of run.requests.filter((item) => !item.accepted)) {
    const x = scale.x(request.turn);
    const y = scale.y(request.promptTokens);
    parts.push(
      `<g class="failure" stroke="${CHART_COLORS.failure}" stroke-width="3"><line x1="${x - 7}" y1="${y - 7}" x2="${x + 7}" y2="${y + 7}"/><line x1="${x - 7}" y1="${y + 7}" x2="${x + 7}" y2="${y - 7}"/></g>`,
      `<text x="${x + 10}" y="${y + 4}" class="note" fill="${CHART_COLORS.failure}">${escapeHtml(`${run.name}: rejected (${request.overflow ?? 'error'})`)}</text>`,
    );
  }
  const pointAt = (turn: number) => accepted.find((request) => request.turn === turn);
  for (const turn of new Set(run.prunes.map((prune) => prune.turn))) {
    const point = pointAt(turn);
    if (!point) continue;
    const x = scale.x(turn);
    const y = scale.y(point.promptTokens) - 9;
    parts.push(
      `<path class="prune" d="M${x - 4},${y - 6} L${x + 4},${y - 6} L${x},${y} Z" fill="${CHART_COLORS.prune}"/>`,
    );
  }
  for (const compaction of run.compactions) {
    const point = pointAt(compaction.turn);
    if (!point) continue;
    const x = scale.x(compaction.turn);
    const y = scale.y(point.promptTokens);
    parts.push(
      `<path class="compaction" d="M${x},${y - 8} L${x + 8},${y} L${x},${y + 8} L${x - 8},${y} Z" fill="${CHART_COLORS.compaction}"/>`,
    );
  }
  return parts.join('\n');
}

function chart(result: DemoResult): string {
  const { plain, spillway } = result.runs;
  const highest = Math.max(
    result.realWindow,
    result.advertised.contextLength,
    ...[...plain.requests, ...spillway.requests].map((request) => request.promptTokens),
  );
  const top = Math.ceil((highest * 1.08) / 1_000) * 1_000;
  // The largest prompt the plain run can send: the real window minus the max_tokens it asks for.
  const plainMax = result.advertised.outputCap;
  const ceiling =
    plainMax !== undefined && plainMax < result.realWindow ? result.realWindow - plainMax : undefined;
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const scale: Scale = {
    x: (turn) => MARGIN.left + (innerWidth * (turn - 1)) / Math.max(1, result.turns - 1),
    y: (tokens) => MARGIN.top + innerHeight * (1 - tokens / top),
  };
  const grid: string[] = [];
  const step = top > 40_000 ? 10_000 : top > 12_000 ? 2_500 : 1_000;
  for (let tokens = 0; tokens <= top; tokens += step)
    grid.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + innerWidth}" y1="${scale.y(tokens)}" y2="${scale.y(tokens)}" stroke="#e5e5e5"/>`,
      `<text x="${MARGIN.left - 8}" y="${scale.y(tokens) + 4}" text-anchor="end" class="axis">${count(tokens)}</text>`,
    );
  const tick = Math.max(1, Math.ceil(result.turns / 15));
  for (let turn = 1; turn <= result.turns; turn += tick)
    grid.push(
      `<text x="${scale.x(turn)}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle" class="axis">${turn}</text>`,
    );
  const limit = (tokens: number, color: string, label: string, dash: string) =>
    `<line x1="${MARGIN.left}" x2="${MARGIN.left + innerWidth}" y1="${scale.y(tokens)}" y2="${scale.y(tokens)}" stroke="${color}" stroke-width="2" stroke-dasharray="${dash}"/>` +
    `<text x="${MARGIN.left + innerWidth + 8}" y="${scale.y(tokens) + 4}" class="note" fill="${color}">${escapeHtml(label)}</text>`;
  const legend = [
    [CHART_COLORS.plain, 'plain client'],
    [CHART_COLORS.spillway, 'through Spillway'],
    [CHART_COLORS.failure, '✕ rejected request'],
    [CHART_COLORS.prune, '▼ turns pruned'],
    [CHART_COLORS.compaction, '◆ compaction'],
  ]
    .map(
      ([color, label], index) =>
        `<rect x="${MARGIN.left + innerWidth + 8}" y="${MARGIN.top + 60 + index * 20}" width="12" height="12" fill="${color}"/><text x="${MARGIN.left + innerWidth + 26}" y="${MARGIN.top + 70 + index * 20}" class="note">${escapeHtml(label as string)}</text>`,
    )
    .join('\n');
  return `<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="prompt tokens per turn">
<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>
${grid.join('\n')}
<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + innerHeight}" stroke="#444"/>
<line x1="${MARGIN.left}" x2="${MARGIN.left + innerWidth}" y1="${MARGIN.top + innerHeight}" y2="${MARGIN.top + innerHeight}" stroke="#444"/>
<text x="${MARGIN.left + innerWidth / 2}" y="${HEIGHT - 6}" text-anchor="middle" class="axis">turn</text>
<text x="16" y="${MARGIN.top + innerHeight / 2}" transform="rotate(-90 16 ${MARGIN.top + innerHeight / 2})" text-anchor="middle" class="axis">prompt tokens</text>
${limit(result.realWindow, CHART_COLORS.realWindow, `real window ${count(result.realWindow)}`, '')}
${limit(result.advertised.contextLength, CHART_COLORS.advertised, `advertised ${count(result.advertised.contextLength)}`, '8 5')}
${ceiling === undefined ? '' : limit(ceiling, CHART_COLORS.plain, `plain's ceiling ${count(ceiling)}`, '2 4')}
${runSeries(plain, scale, CHART_COLORS.plain)}
${runSeries(spillway, scale, CHART_COLORS.spillway)}
${legend}
</svg>`;
}

function table(result: DemoResult): string {
  const { plain, spillway } = result.runs;
  const row = (label: string, left: string | number, right: string | number) =>
    `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(String(left))}</td><td>${escapeHtml(String(right))}</td></tr>`;
  return `<table>
<tr><th></th><th>plain</th><th>spillway</th></tr>
${row('turns completed', `${plain.turnsCompleted} / ${result.turns}`, `${spillway.turnsCompleted} / ${result.turns}`)}
${row('stuck', plain.stuck ? 'yes' : 'no', spillway.stuck ? 'yes' : 'no')}
${row('overflows (context / budget / output cap)', `${plain.overflows.context} / ${plain.overflows.budget} / ${plain.overflows.output_cap}`, `${spillway.overflows.context} / ${spillway.overflows.budget} / ${spillway.overflows.output_cap}`)}
${row('recoveries', plain.recoveries, spillway.recoveries)}
${row('provider calls', plain.providerCalls, spillway.providerCalls)}
${row('prompt tokens sent', count(plain.promptTokensSent), count(spillway.promptTokensSent))}
${row('largest accepted prompt', count(plain.promptTokensMax), count(spillway.promptTokensMax))}
${row('prunes / compactions', `${plain.prunes.length} / ${plain.compactions.length}`, `${spillway.prunes.length} / ${spillway.compactions.length}`)}
</table>`;
}

/**
 * The report page. Self-contained: open it from disk, offline.
 *
 * @example
 * await writeFile('demo.html', renderDemoHtml(await runDemo()));
 */
export function renderDemoHtml(result: DemoResult): string {
  const scale = result.profile === 'litellm-vllm' ? ` at ${result.scale} scale` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>spillway demo · ${escapeHtml(result.profile)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; }
p { margin: 4px 0; }
table { border-collapse: collapse; margin: 16px 0; }
th, td { padding: 3px 12px; text-align: left; border-bottom: 1px solid #eee; }
svg text.axis { font-size: 11px; fill: #555; }
svg text.note { font-size: 11px; }
</style>
</head>
<body>
<h1>spillway demo · ${escapeHtml(result.profile)}${escapeHtml(scale)} · ${escapeHtml(result.model)}</h1>
<p>${escapeHtml(backendLine(result))}.</p>
${limitsLines(result)
  .map((line) => `<p class="learned">${escapeHtml(line)}.</p>`)
  .join('\n')}
<p>The same ${result.turns}-turn scripted coding session, once through a plain client (the full transcript, max_tokens as advertised) and once through Spillway.</p>
${chart(result)}
${table(result)}
<p>${escapeHtml(stuckLine(result.runs.plain, result))}.</p>
<p>${escapeHtml(stuckLine(result.runs.spillway, result))}.</p>
</body>
</html>
`;
}

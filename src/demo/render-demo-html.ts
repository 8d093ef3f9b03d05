/**
 * @module
 * `spillway demo --report FILE.html`: one self-contained page (inline SVG and CSS, no script, no
 * external asset, nothing fetched): the verdict first, then a chart of each run's requests (the
 * prompt and the `max_tokens` it asked for, against the advertised and the real window, with
 * rejections, silent truncations, prunes and compactions marked), the summary table and the setting.
 */
import { CHART_COLORS } from './chart-frame.js';
import { escapeXml as escapeHtml } from './chart-text.js';
import { type DemoVerdict, demoVerdict } from './demo-verdict.js';
import { settingLines, summaryRows } from './format-demo-summary.js';
import { renderDemoChart } from './render-demo-chart.js';
import type { DemoResult } from './run-demo.js';
import { verdictLines } from './verdict-lines.js';

export { CHART_COLORS };

const LEGEND: ReadonlyArray<readonly [string, string]> = [
  [`background:${CHART_COLORS.plain}`, 'prompt, plain client'],
  [`background:${CHART_COLORS.spillway}`, 'prompt, through Spillway'],
  [`background:${CHART_COLORS.spillway};opacity:0.3`, 'max_tokens asked for, stacked on the prompt'],
  [
    `background:repeating-linear-gradient(45deg,${CHART_COLORS.dropped} 0 2px,#fbe3e3 2px 5px)`,
    'prompt the server dropped without an error',
  ],
  [`border:2px dashed ${CHART_COLORS.failure}`, 'rejected request (✕)'],
  [
    `background:${CHART_COLORS.prune};clip-path:polygon(0 0,100% 0,50% 100%)`,
    'a cut: -N old turns left out so far, eN old tool results elided',
  ],
  [
    `background:${CHART_COLORS.compaction};clip-path:polygon(50% 0,100% 50%,50% 100%,0 50%)`,
    'cN: compaction of N messages',
  ],
  [`background:${CHART_COLORS.realWindow};height:3px`, 'window the server enforces on prompt + max_tokens'],
  [`background:${CHART_COLORS.advertised};height:3px`, 'window advertised'],
];

function legend(): string {
  return `<ul class="legend">${LEGEND.map(([style, label]) => `<li><span class="swatch" style="${style}"></span>${escapeHtml(label)}</li>`).join('')}</ul>`;
}

function table(result: DemoResult, verdict: DemoVerdict): string {
  const rows = summaryRows(result, verdict).map(
    ([label, left, right]) =>
      `<tr><th>${escapeHtml(label.trim())}</th><td>${escapeHtml(left)}</td><td>${escapeHtml(right)}</td></tr>`,
  );
  return `<table>\n<tr><th></th><th>plain</th><th>spillway</th></tr>\n${rows.join('\n')}\n</table>`;
}

/**
 * The report page. Self-contained: open it from disk, offline.
 *
 * @example
 * await writeFile('demo.html', renderDemoHtml(await runDemo()));
 */
export function renderDemoHtml(result: DemoResult, verdict: DemoVerdict = demoVerdict(result)): string {
  const scale = result.profile === 'litellm-vllm' ? ` at ${result.scale} scale` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>spillway demo · ${escapeHtml(result.profile)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 18px 0 4px; }
p { margin: 4px 0; }
.verdict p { font-size: 15px; }
table { border-collapse: collapse; margin: 16px 0; }
th, td { padding: 3px 12px; text-align: left; border-bottom: 1px solid #eee; }
.legend { list-style: none; padding: 0; margin: 12px 0; display: flex; flex-wrap: wrap; gap: 4px 18px; max-width: 960px; font-size: 13px; }
.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 14px; height: 12px; box-sizing: border-box; }
</style>
</head>
<body>
<h1>spillway demo · ${escapeHtml(result.profile)}${escapeHtml(scale)} · ${escapeHtml(result.model)}</h1>
<section class="verdict">
${verdictLines(result, verdict)
  .map((line) => `<p>${escapeHtml(line)}.</p>`)
  .join('\n')}
</section>
<p>The same ${result.turns}-turn scripted coding session, once through a plain client (the full transcript, max_tokens as advertised) and once through Spillway. Each bar is one request: the prompt, and on top of it the max_tokens it asked for; the window limits the sum.</p>
${legend()}
${renderDemoChart(result, verdict)}
${table(result, verdict)}
<h2>Setting</h2>
${settingLines(result)
  .map((line) => `<p class="setting">${escapeHtml(line)}.</p>`)
  .join('\n')}
</body>
</html>
`;
}

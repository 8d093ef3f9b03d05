/**
 * @module
 * The report's chart: one panel per run, one above the other, then one layout pass over every
 * label of both, so that no label covers another or an axis figure; a label moved away from what it
 * names gets a leader line to it.
 */
import { CHART_COLORS, type ChartText, type FixedText, type WishedText } from './chart-frame.js';
import { panelMarks } from './chart-panel.js';
import { CHART_FONT, FONT_SIZE, textElement } from './chart-text.js';
import type { DemoVerdict } from './demo-verdict.js';
import { type Box, layoutLabels } from './layout-labels.js';
import type { DemoResult } from './run-demo.js';

const WIDTH = 960;
const PANEL_HEIGHT = 230;
const MARGIN = { top: 34, right: 230, bottom: 40, left: 70 };

/** Where a label ended up, and the line back to what it names when it had to move. */
function placedText(text: WishedText, box: Box, moved: boolean): string {
  // A backing so that a label over bars stays legible.
  const element = `<rect class="label-backing" x="${box.x.toFixed(1)}" y="${box.y.toFixed(1)}" width="${box.width}" height="${box.height}" fill="#ffffff" fill-opacity="0.85"/>\n${textElement(box, text.text, text)}`;
  if (!moved) return element;
  const x = Math.min(Math.max(text.anchor.x, box.x), box.x + box.width);
  const y = Math.min(Math.max(text.anchor.y, box.y), box.y + box.height);
  if (Math.hypot(x - text.anchor.x, y - text.anchor.y) < 4) return element;
  const leader = `<line class="leader" x1="${text.anchor.x.toFixed(1)}" y1="${text.anchor.y.toFixed(1)}" x2="${x.toFixed(1)}" y2="${y.toFixed(1)}" stroke="${text.fill ?? '#555'}" stroke-width="0.8"/>`;
  return `${leader}\n${element}`;
}

const fixedText = (text: FixedText & ChartText) => textElement(text.box, text.text, text);

/** A panel's title: the run and how it ended, in a few words. */
function titleOf(name: 'plain' | 'spillway', verdict: DemoVerdict, turns: number): string {
  const judged = verdict[name];
  const who = name === 'plain' ? 'plain client' : 'through Spillway';
  const outcome =
    judged.outcome === 'stuck'
      ? `stuck at turn ${judged.stuckAt?.turn}`
      : judged.outcome === 'stopped'
        ? `stopped after ${judged.turnsCompleted} turns`
        : judged.outcome === 'completed_truncated'
          ? `${turns} of ${turns} turns, but the server dropped up to ${Math.round(judged.contextLostMax * 100)}% of a prompt`
          : `${turns} of ${turns} turns`;
  return `${who}: ${outcome}`;
}

/**
 * The chart, as an inline SVG element.
 *
 * @example
 * const svg = renderDemoChart(result, demoVerdict(result));
 */
export function renderDemoChart(result: DemoResult, verdict: DemoVerdict): string {
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const panels = (['plain', 'spillway'] as const).map((name, index) => {
    const top = MARGIN.top + index * (PANEL_HEIGHT + MARGIN.top + MARGIN.bottom);
    const frame = {
      left: MARGIN.left,
      top,
      width: innerWidth,
      height: PANEL_HEIGHT,
      labelArea: {
        x: MARGIN.left + innerWidth + 8,
        y: top - 8,
        width: MARGIN.right - 10,
        height: PANEL_HEIGHT + 16,
      },
    };
    return panelMarks({
      frame,
      run: result.runs[name],
      judged: verdict[name],
      result,
      title: titleOf(name, verdict, result.turns),
      color: name === 'plain' ? CHART_COLORS.plain : CHART_COLORS.spillway,
    });
  });
  const fixed = panels.flatMap((panel) => panel.fixed);
  const wishes = panels.flatMap((panel) => panel.wishes);
  const chartBottom = 2 * (PANEL_HEIGHT + MARGIN.top + MARGIN.bottom);
  const placed = layoutLabels({
    labels: wishes,
    obstacles: fixed.map((text) => text.box),
    area: { x: 0, y: 0, width: WIDTH, height: chartBottom },
    gap: 3,
  });
  const labels = placed.map((label, index) =>
    placedText(wishes[index] as WishedText, label.box, label.moved),
  );
  const height = Math.ceil(
    Math.max(chartBottom, ...placed.map((label) => label.box.y + label.box.height + 6)),
  );
  return `<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="prompt and max_tokens per request of each run against the window">
<style>text { font-family: ${CHART_FONT}; font-size: ${FONT_SIZE}px; } text.axis { fill: #555; } text.title { font-weight: bold; fill: #222; } text.note { paint-order: stroke; stroke: #ffffff; stroke-width: 3px; }</style>
<defs><pattern id="dropped" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fbe3e3"/><line x1="0" y1="0" x2="0" y2="6" stroke="${CHART_COLORS.dropped}" stroke-width="2.5"/></pattern></defs>
<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#ffffff"/>
${panels.flatMap((panel) => panel.svg).join('\n')}
${fixed.map(fixedText).join('\n')}
${labels.join('\n')}
</svg>`;
}

/**
 * @module
 * One run's panel of the report's chart: a bar per request, the prompt with the `max_tokens` it
 * asked for stacked on top (the window limits the sum), against the real and the advertised window.
 * A prompt the server cut silently shows the part it dropped hatched; a rejected request is an
 * outline with a cross; prunes and compactions are marked above the bar of the turn they made room
 * for. Its text comes back as fixed boxes and label wishes for the layout pass.
 */
import { cutMarks, storyLabels } from './chart-annotations.js';
import { CHART_COLORS, count, type PanelFrame, type PanelMarks, reach, type Scale } from './chart-frame.js';
import { textBox } from './chart-text.js';
import type { DemoRunVerdict } from './demo-verdict.js';
import type { DemoResult } from './run-demo.js';
import type { DemoRequest, DemoRun } from './run-demo-session.js';

/** A round step giving at most about six grid lines up to `top`. */
function gridStep(top: number): number {
  const rough = top / 6;
  const power = 10 ** Math.floor(Math.log10(rough));
  const factor = [1, 2, 2.5, 5, 10].find((candidate) => candidate * power >= rough) ?? 10;
  return factor * power;
}

/** The top of a panel's scale: its largest request and both windows, with a tenth more room above, on a grid line. */
function panelTop(run: DemoRun, result: DemoResult): number {
  const highest = Math.max(result.realWindow, result.advertised.contextLength, ...run.requests.map(reach));
  const step = gridStep(highest * 1.1);
  return Math.ceil((highest * 1.1) / step) * step;
}

function scaleOf(frame: PanelFrame, turns: number, top: number): Scale {
  const band = frame.width / turns;
  return {
    x: (turn) => frame.left + band * (turn - 1),
    band,
    y: (tokens) => frame.top + frame.height * (1 - Math.min(tokens, top) / top),
  };
}

function axes(frame: PanelFrame, scale: Scale, top: number, turns: number, marks: PanelMarks): void {
  const step = gridStep(top);
  for (let tokens = 0; tokens <= top; tokens += step) {
    const y = scale.y(tokens);
    marks.svg.push(
      `<line x1="${frame.left}" x2="${frame.left + frame.width}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#e5e5e5"/>`,
    );
    marks.fixed.push({
      text: count(tokens),
      className: 'axis',
      box: textBox(count(tokens), { x: frame.left - 6, top: y - 7, align: 'end' }),
    });
  }
  const tick = Math.max(1, Math.ceil(turns / 15));
  for (let turn = 1; turn <= turns; turn += tick)
    marks.fixed.push({
      text: String(turn),
      className: 'axis',
      box: textBox(String(turn), {
        x: scale.x(turn) + scale.band / 2,
        top: frame.top + frame.height + 4,
        align: 'middle',
      }),
    });
  const bottom = frame.top + frame.height;
  marks.svg.push(
    `<line x1="${frame.left}" x2="${frame.left}" y1="${frame.top}" y2="${bottom}" stroke="#444"/>`,
    `<line x1="${frame.left}" x2="${frame.left + frame.width}" y1="${bottom}" y2="${bottom}" stroke="#444"/>`,
  );
}

function limitLine(
  frame: PanelFrame,
  scale: Scale,
  line: { id: string; tokens: number; color: string; dash: string; label: string },
  marks: PanelMarks,
): void {
  const y = scale.y(line.tokens);
  marks.svg.push(
    `<line class="limit ${line.id}" x1="${frame.left}" x2="${frame.left + frame.width}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="${line.color}" stroke-width="2" stroke-dasharray="${line.dash}"/>`,
  );
  const box = textBox(line.label, { x: frame.labelArea.x, top: y - 7 });
  marks.wishes.push({
    id: line.id,
    text: line.label,
    className: 'note',
    fill: line.color,
    width: box.width,
    height: box.height,
    xs: [box.x],
    y: box.y,
    area: frame.labelArea,
    anchor: { x: frame.left + frame.width, y },
  });
}

function requestBar(
  request: DemoRequest,
  geometry: { x: number; width: number; scale: Scale; color: string },
  marks: PanelMarks,
): void {
  const { x, width, scale, color } = geometry;
  const rect = (className: string, from: number, to: number, style: string) =>
    `<rect class="${className}" x="${x.toFixed(1)}" y="${scale.y(to).toFixed(1)}" width="${width.toFixed(1)}" height="${Math.max(0, scale.y(from) - scale.y(to)).toFixed(1)}" ${style}/>`;
  if (!request.accepted) {
    const top = scale.y(reach(request));
    const middle = x + width / 2;
    marks.svg.push(
      rect(
        'rejected',
        0,
        reach(request),
        `fill="none" stroke="${CHART_COLORS.failure}" stroke-dasharray="3 2"`,
      ),
      `<g class="failure" stroke="${CHART_COLORS.failure}" stroke-width="3"><line x1="${middle - 6}" y1="${top - 6}" x2="${middle + 6}" y2="${top + 6}"/><line x1="${middle - 6}" y1="${top + 6}" x2="${middle + 6}" y2="${top - 6}"/></g>`,
    );
    return;
  }
  const kept = request.keptTokens ?? request.promptTokens;
  marks.svg.push(rect('prompt', 0, kept, `fill="${color}"`));
  if (kept < request.promptTokens)
    marks.svg.push(
      rect('dropped', kept, request.promptTokens, `fill="url(#dropped)" stroke="${CHART_COLORS.dropped}"`),
    );
  if (request.maxTokens !== undefined)
    marks.svg.push(
      rect('reply-room', request.promptTokens, reach(request), `fill="${color}" fill-opacity="0.3"`),
    );
}

/** The bars of every request, two or more in one turn side by side. */
function bars(run: DemoRun, scale: Scale, color: string, marks: PanelMarks): void {
  const byTurn = new Map<number, DemoRequest[]>();
  for (const request of run.requests)
    byTurn.set(request.turn, [...(byTurn.get(request.turn) ?? []), request]);
  for (const [turn, requests] of byTurn) {
    const width = (scale.band * 0.72) / requests.length;
    requests.forEach((request, index) => {
      const x = scale.x(turn) + scale.band * 0.14 + index * width;
      requestBar(request, { x, width, scale, color }, marks);
    });
  }
}

/** Everything one run's panel draws. */
export function panelMarks({
  frame,
  run,
  judged,
  result,
  title,
  color,
}: {
  frame: PanelFrame;
  run: DemoRun;
  judged: DemoRunVerdict;
  result: DemoResult;
  title: string;
  color: string;
}): PanelMarks {
  const marks: PanelMarks = { svg: [], fixed: [], wishes: [] };
  const top = panelTop(run, result);
  const scale = scaleOf(frame, result.turns, top);
  marks.fixed.push({
    text: title,
    className: 'title',
    box: textBox(title, { x: frame.left, top: frame.top - 20 }),
  });
  axes(frame, scale, top, result.turns, marks);
  bars(run, scale, color, marks);
  const same = result.advertised.contextLength === result.realWindow;
  limitLine(
    frame,
    scale,
    {
      id: 'real-window',
      tokens: result.realWindow,
      color: CHART_COLORS.realWindow,
      dash: '',
      label: `${same ? 'window' : 'real window'} ${count(result.realWindow)}${same ? ' (as advertised)' : ''}`,
    },
    marks,
  );
  if (!same)
    limitLine(
      frame,
      scale,
      {
        id: 'advertised',
        tokens: result.advertised.contextLength,
        color: CHART_COLORS.advertised,
        dash: '8 5',
        label: `advertised ${count(result.advertised.contextLength)}`,
      },
      marks,
    );
  storyLabels(frame, run, judged, scale, marks);
  cutMarks(frame, run, scale, marks);
  return marks;
}

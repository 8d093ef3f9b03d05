/**
 * @module
 * One run's panel of the report's chart: a bar per request, the prompt with the `max_tokens` it
 * asked for stacked on top (the window limits the sum), against the real and the advertised window.
 * A prompt the server cut silently shows the part it dropped hatched; a rejected request is an
 * outline with a cross; prunes and compactions are marked above the bar of the turn they made room
 * for. Its text comes back as fixed boxes and label wishes for the layout pass.
 */
import { textBox } from './chart-text.js';
import { type DemoRunVerdict, lostShare } from './demo-verdict.js';
import type { Box, LabelWish } from './layout-labels.js';
import type { DemoResult } from './run-demo.js';
import type { DemoRequest, DemoRun } from './run-demo-session.js';
import { percent } from './verdict-lines.js';

/** The chart's colors (a test looks for them in a screenshot). */
export const CHART_COLORS = {
  plain: '#1f77b4',
  spillway: '#2ca02c',
  realWindow: '#d62728',
  advertised: '#ff7f0e',
  failure: '#d62728',
  dropped: '#d62728',
  prune: '#555555',
  compaction: '#9467bd',
} as const;

/** A text of the chart with its box: fixed (axis, titles) or placed by the layout pass. */
export interface ChartText {
  text: string;
  className: string;
  fill?: string;
}
export type FixedText = ChartText & { box: Box };
export type WishedText = ChartText & LabelWish & { anchor: { x: number; y: number } };

/** Where a panel sits and how it maps turns and tokens. */
export interface PanelFrame {
  left: number;
  top: number;
  width: number;
  height: number;
  /** The right margin, for the limit lines' labels. */
  labelArea: Box;
}

/** What a panel draws. */
export interface PanelMarks {
  svg: string[];
  fixed: FixedText[];
  wishes: WishedText[];
}

const count = (value: number): string => value.toLocaleString('en-US');

/** A round step giving at most about six grid lines up to `top`. */
export function gridStep(top: number): number {
  const rough = top / 6;
  const power = 10 ** Math.floor(Math.log10(rough));
  const factor = [1, 2, 2.5, 5, 10].find((candidate) => candidate * power >= rough) ?? 10;
  return factor * power;
}

const reach = (request: DemoRequest): number => request.promptTokens + (request.maxTokens ?? 0);

/** The top of a panel's scale: its largest request and both windows, with headroom, on a grid line. */
export function panelTop(run: DemoRun, result: DemoResult): number {
  const highest = Math.max(result.realWindow, result.advertised.contextLength, ...run.requests.map(reach));
  const step = gridStep(highest * 1.1);
  return Math.ceil((highest * 1.1) / step) * step;
}

interface Scale {
  x(turn: number): number;
  band: number;
  y(tokens: number): number;
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

/** A label beside a point of the plot: to its right, else to its left, just above it. */
function pointLabel(
  frame: PanelFrame,
  point: { id: string; x: number; y: number; text: string; fill: string },
): WishedText {
  const box = textBox(point.text, { x: point.x + 6, top: point.y - 18 });
  return {
    id: point.id,
    text: point.text,
    className: 'note',
    fill: point.fill,
    width: box.width,
    height: box.height,
    xs: [box.x, point.x - 6 - box.width],
    y: box.y,
    area: { x: frame.left + 2, y: frame.top, width: frame.width - 2, height: frame.height },
    anchor: { x: point.x, y: point.y },
  };
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

/** Prune and compaction marks above the turn they made room for, each with what it removed. */
function cuts(frame: PanelFrame, run: DemoRun, scale: Scale, marks: PanelMarks): void {
  const topOf = (turn: number) =>
    Math.min(
      ...run.requests.filter((request) => request.turn === turn).map((request) => scale.y(reach(request))),
    );
  const events = [
    ...run.prunes.map((prune) => ({
      turn: prune.turn,
      kind: 'prune' as const,
      text: prune.droppedTurns > 0 ? `-${prune.droppedTurns}` : `e${prune.elided}`,
    })),
    ...run.compactions.map((item) => ({
      turn: item.turn,
      kind: 'compaction' as const,
      text: `c${item.removed}`,
    })),
  ];
  const stacked = new Map<number, number>();
  for (const [index, event] of events.entries()) {
    const level = stacked.get(event.turn) ?? 0;
    stacked.set(event.turn, level + 1);
    const x = scale.x(event.turn) + scale.band / 2;
    const y =
      (Number.isFinite(topOf(event.turn)) ? topOf(event.turn) : frame.top + frame.height) - 5 - level * 11;
    const color = event.kind === 'prune' ? CHART_COLORS.prune : CHART_COLORS.compaction;
    marks.svg.push(
      event.kind === 'prune'
        ? `<path class="prune" d="M${x - 4},${y - 7} L${x + 4},${y - 7} L${x},${y} Z" fill="${color}"/>`
        : `<path class="compaction" d="M${x},${y - 9} L${x + 4},${y - 4.5} L${x},${y} L${x - 4},${y - 4.5} Z" fill="${color}"/>`,
    );
    const box = textBox(event.text, { x, top: y - 9 - 14, align: 'middle' });
    marks.wishes.push({
      ...pointLabel(frame, { id: `${event.kind}-${index}`, x, y: y - 4, text: event.text, fill: color }),
      xs: [box.x, box.x + box.width / 2 + 6, box.x - box.width / 2 - 6],
      y: box.y,
    });
  }
}

/** The labels that tell the run's story on the chart: where it got stuck, what the server dropped. */
function storyLabels(
  frame: PanelFrame,
  run: DemoRun,
  judged: DemoRunVerdict,
  scale: Scale,
  marks: PanelMarks,
): void {
  const at = (request: DemoRequest) => ({
    x: scale.x(request.turn) + scale.band / 2,
    y: scale.y(reach(request)),
  });
  if (judged.stuckAt) {
    const sum = judged.stuckAt.maxTokens === undefined ? '' : ` + ${count(judged.stuckAt.maxTokens)}`;
    const text = `rejected at turn ${judged.stuckAt.turn}: ${count(judged.stuckAt.promptTokens)}${sum}; stuck`;
    marks.wishes.push(
      pointLabel(frame, { id: 'stuck', ...at(judged.stuckAt), text, fill: CHART_COLORS.failure }),
    );
  }
  for (const request of run.requests.filter((item) => !item.accepted && item !== judged.stuckAt))
    marks.wishes.push(
      pointLabel(frame, {
        id: `rejected-${request.turn}`,
        ...at(request),
        text: `rejected (${request.overflow ?? 'error'})`,
        fill: CHART_COLORS.failure,
      }),
    );
  const first = run.requests.find((request) => request.keptTokens !== undefined);
  const worst = judged.worstTruncation;
  if (first && first !== worst)
    marks.wishes.push(
      pointLabel(frame, {
        id: 'truncation-start',
        ...at(first),
        text: `turn ${first.turn}: the server starts dropping the front`,
        fill: CHART_COLORS.dropped,
      }),
    );
  const final = judged.finalTruncation;
  if (final?.keptTokens !== undefined && final !== worst)
    marks.wishes.push(
      pointLabel(frame, {
        id: 'truncation-final',
        ...at(final),
        text: `last turn: kept ${count(final.keptTokens)} of ${count(final.promptTokens)}, ${percent(lostShare(final))} lost`,
        fill: CHART_COLORS.dropped,
      }),
    );
  if (worst?.keptTokens !== undefined)
    marks.wishes.push(
      pointLabel(frame, {
        id: 'truncation-worst',
        ...at(worst),
        text: `turn ${worst.turn}: kept ${count(worst.keptTokens)} of ${count(worst.promptTokens)}, ${percent(judged.contextLostMax)} lost`,
        fill: CHART_COLORS.dropped,
      }),
    );
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
  cuts(frame, run, scale, marks);
  return marks;
}

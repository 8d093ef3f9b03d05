/**
 * @module
 * The marks and labels that tell a run's story on its panel: where it got stuck, where the server
 * started dropping the front of its prompts and how much it dropped, and every cut Spillway made.
 */
import {
  CHART_COLORS,
  count,
  type PanelFrame,
  type PanelMarks,
  reach,
  type Scale,
  type WishedText,
} from './chart-frame.js';
import { textBox } from './chart-text.js';
import { type DemoRunVerdict, lostShare } from './demo-verdict.js';
import type { DemoRequest, DemoRun } from './run-demo-session.js';
import { percent } from './share-percent.js';

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

/** Prune and compaction marks above the turn they made room for, each with what it removed. */
export function cutMarks(frame: PanelFrame, run: DemoRun, scale: Scale, marks: PanelMarks): void {
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
export function storyLabels(
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

/**
 * @module
 * What the chart's pieces share: its colors, a panel's frame and scale, and the text a panel hands
 * to the layout pass.
 */
import type { Box, LabelWish } from './layout-labels.js';
import type { DemoRequest } from './run-demo-session.js';

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

/** Where a panel sits. */
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

/** How a panel maps turns and tokens to the page. */
export interface Scale {
  x(turn: number): number;
  band: number;
  y(tokens: number): number;
}

/** The top of a request's bar: its prompt and the `max_tokens` it asked for. */
export const reach = (request: DemoRequest): number => request.promptTokens + (request.maxTokens ?? 0);

export const count = (value: number): string => value.toLocaleString('en-US');

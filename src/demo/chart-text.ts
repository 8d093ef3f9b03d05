/**
 * @module
 * Text in the report's chart: one monospace face at one size, so a label's box is known before the
 * page is drawn (the layout pass works on these boxes; the Chromium test measures the real ones).
 */
import type { Box } from './layout-labels.js';

export const FONT_SIZE = 11;
/**
 * Width of one character: monospace faces advance 0.6 em (DejaVu Sans Mono 0.602, Menlo 0.602,
 * Courier New 0.600, Consolas 0.550); 0.62 keeps every box a little wider than the ink.
 */
const CHAR_WIDTH = FONT_SIZE * 0.62;
/** A line's box: ascent and descent of those faces at 11 px stay within 14 px. */
export const TEXT_HEIGHT = 14;
/** From a box's top to the text's baseline. */
const ASCENT = 11;

export const CHART_FONT = "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace";

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The width a line of chart text takes. */
export function textWidth(text: string): number {
  return Math.ceil([...text].length * CHAR_WIDTH) + 2;
}

/** The box of `text` drawn at `x` (its left, its center or its right, by `align`) with its top at `top`. */
export function textBox(
  text: string,
  { x, top, align = 'start' }: { x: number; top: number; align?: 'start' | 'middle' | 'end' },
): Box {
  const width = textWidth(text);
  const left = align === 'start' ? x : align === 'middle' ? x - width / 2 : x - width;
  return { x: left, y: top, width, height: TEXT_HEIGHT };
}

/** A chart text element filling `box` (drawn from its left edge). */
export function textElement(
  box: Box,
  text: string,
  { className, fill }: { className: string; fill?: string },
): string {
  const color = fill === undefined ? '' : ` fill="${fill}"`;
  return `<text x="${box.x.toFixed(1)}" y="${(box.y + ASCENT).toFixed(1)}" class="${className}"${color}>${escapeXml(text)}</text>`;
}

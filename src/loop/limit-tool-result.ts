/**
 * @module
 * A cap on one tool result, applied when the tool returns. The newest tool run is never compressed
 * or pruned, so a single output bigger than the room left (a pasted log, a minified bundle) would
 * make every send impossible; cut at execution, it keeps its start and its end and says what is
 * missing.
 */
import { type Content, contentText, estimateTokens } from '../core/index.js';

/**
 * The result, or its start and end around a marker when its estimate is above `maxTokens`. Text is
 * cut at line ends where there are some, two thirds of the room for the start.
 *
 * @example
 * limitToolResult({ content: hugeLog, maxTokens: 4_000, model: 'gpt-4o' });
 */
export function limitToolResult({
  content,
  maxTokens,
  model,
}: {
  content: Content;
  maxTokens: number;
  model?: string;
}): { content: Content; cut: boolean } {
  if (!Number.isFinite(maxTokens) || maxTokens <= 0) return { content, cut: false };
  const text = typeof content === 'string' ? content : contentText(content);
  const options = model === undefined ? {} : { model };
  const tokens = estimateTokens(text, options).total;
  if (tokens <= maxTokens) return { content, cut: false };
  // Characters in proportion to the room, with a margin for the marker and uneven density.
  const keep = Math.floor((text.length * maxTokens * 0.9) / tokens);
  let headEnd = Math.floor((keep * 2) / 3);
  let tailStart = text.length - (keep - headEnd);
  const newline = text.lastIndexOf('\n', headEnd);
  if (newline > headEnd / 2) headEnd = newline + 1;
  const tailNewline = text.indexOf('\n', tailStart);
  if (tailNewline !== -1 && tailNewline < tailStart + (text.length - tailStart) / 2)
    tailStart = tailNewline + 1;
  const cutTokens = tokens - estimateTokens(text.slice(0, headEnd) + text.slice(tailStart), options).total;
  const marker = `[… about ${Math.max(0, cutTokens).toLocaleString('en-US')} tokens of this output cut to fit the context window; the start and the end are kept. Ask for a narrower range to see the middle.]`;
  return { content: `${text.slice(0, headEnd)}\n${marker}\n${text.slice(tailStart)}`, cut: true };
}

/**
 * @module
 * A cap on one tool result, applied when the tool returns. The newest tool run is never compressed
 * or pruned, so a single output bigger than the room left (a pasted log, a minified bundle) would
 * make every send impossible; cut at execution, it keeps its start and its end and says what is
 * missing.
 */
import { type Content, contentText, estimateTokens, keepEnds } from '../core/index.js';

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
  const cutText = keepEnds(text, keep, ({ head, tail }) => {
    const cutTokens = tokens - estimateTokens(head + tail, options).total;
    return `[… about ${Math.max(0, cutTokens).toLocaleString('en-US')} tokens of this output cut to fit the context window; the start and the end are kept. Ask for a narrower range to see the middle.]`;
  });
  return { content: cutText, cut: true };
}

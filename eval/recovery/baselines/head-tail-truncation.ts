/**
 * Head-and-tail truncation of each tool output when it is produced, as Codex formatted command output
 * for the model in its 2025 releases (openai/codex `codex-rs/core/src/tools/mod.rs`,
 * `MODEL_FORMAT_MAX_BYTES` 10 KiB and `MODEL_FORMAT_MAX_LINES` 256: the first 128 lines within 5 KiB
 * and the last 128 lines within the rest, a marker between them). The history is otherwise sent
 * whole; an overflow ends the session.
 */
import type { LoopTool } from '../../../src/loop/index.js';

const MAX_BYTES = 10 * 1024;
const MAX_LINES = 256;
const HEAD_LINES = MAX_LINES / 2;
const HEAD_BYTES = MAX_BYTES / 2;

/**
 * Lines taken from `lines` in order until `maxLines` or `maxBytes` (UTF-8) is reached; a line that
 * does not fit whole gives the bytes left (from its start, or from its end when `fromEnd`).
 */
function takeLines(
  lines: readonly string[],
  maxLines: number,
  maxBytes: number,
  fromEnd = false,
): { taken: string[]; whole: number } {
  const taken: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (taken.length >= maxLines) break;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) {
      const room = maxBytes - bytes - 1;
      const buffer = Buffer.from(line);
      const part = fromEnd ? buffer.subarray(buffer.length - room) : buffer.subarray(0, room);
      if (room > 0) taken.push(part.toString('utf8').replace(/^\uFFFD|\uFFFD$/g, ''));
      return { taken, whole: taken.length - (room > 0 ? 1 : 0) };
    }
    taken.push(line);
    bytes += size;
  }
  return { taken, whole: taken.length };
}

/** `text` within the limits: whole when it fits, else its head and tail around a marker. */
export function headTailTruncate(text: string): string {
  const lines = text.split('\n');
  if (lines.length <= MAX_LINES && Buffer.byteLength(text) <= MAX_BYTES) return text;
  const head = takeLines(lines, HEAD_LINES, HEAD_BYTES);
  const headText = head.taken.join('\n');
  // A line the head took only the start of is still there for the tail to take the end of.
  const rest = lines.slice(head.whole).reverse();
  const tail = takeLines(rest, MAX_LINES - HEAD_LINES, MAX_BYTES - Buffer.byteLength(headText), true);
  const tailText = tail.taken.reverse().join('\n');
  const omitted = Buffer.byteLength(text) - Buffer.byteLength(headText) - Buffer.byteLength(tailText);
  return `${headText}\n[… ${omitted} bytes omitted …]\n${tailText}`;
}

/** The tools with every string output truncated this way. */
export function headTailTools(tools: readonly LoopTool[]): LoopTool[] {
  return tools.map((tool) => ({
    ...tool,
    execute: async (args, context) => {
      const result = await tool.execute(args, context);
      return typeof result === 'string' ? headTailTruncate(result) : result;
    },
  }));
}

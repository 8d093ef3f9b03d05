/**
 * @module
 * The non-LLM fallback: a digest of a span with the user's messages verbatim, the assistant's text cut
 * short and each tool call as one line, shrunk until it fits.
 */
import { primaryArgument } from '../compress/index.js';
import type { Content, Message } from '../transcript/index.js';
import { cutMiddle } from './serialize-transcript.js';

function textOf(content: Content): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('\n');
}

interface DigestLevel {
  /** Characters of assistant text kept (0: none). */
  assistant: number;
  /** Characters of each user message kept. */
  user: number;
  /** Runs of tool lines merged into one count line. */
  mergeTools: boolean;
}

/** The levels, most detailed first. */
const LEVELS: readonly DigestLevel[] = [
  { assistant: 300, user: Number.POSITIVE_INFINITY, mergeTools: false },
  { assistant: 80, user: Number.POSITIVE_INFINITY, mergeTools: false },
  { assistant: 0, user: Number.POSITIVE_INFINITY, mergeTools: true },
  { assistant: 0, user: 600, mergeTools: true },
];

function toolLine(name: string, argument: string | undefined): string {
  return `[tool ${name}${argument === undefined ? '' : `(${argument})`} ran, result elided]`;
}

function digestLines(messages: readonly Message[], level: DigestLevel): string[] {
  const lines: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length === 0) return;
    if (!level.mergeTools || run.length === 1) lines.push(...run.map((name) => name));
    else {
      const counts = new Map<string, number>();
      for (const line of run) {
        const name = /^\[tool ([^\s(]+)/.exec(line)?.[1] ?? 'tool';
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      const list = [...counts].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`));
      lines.push(`[tools ${list.join(', ')} ran, results elided]`);
    }
    run = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') continue;
    if (message.role === 'assistant') {
      const text = textOf(message.content).trim().replace(/\s+/g, ' ');
      if (text !== '' && level.assistant > 0) {
        flush();
        lines.push(
          `assistant: ${text.length <= level.assistant ? text : `${text.slice(0, level.assistant - 1)}…`}`,
        );
      }
      for (const call of message.toolCalls ?? []) run.push(toolLine(call.name, primaryArgument(call)));
      continue;
    }
    flush();
    const text = textOf(message.content).trim();
    if (message.role === 'user') lines.push(`user: ${cutMiddle(text, level.user)}`);
    else lines.push(`system: ${cutMiddle(text, 600)}`);
  }
  flush();
  return lines;
}

/**
 * A digest of `messages` that `fits` accepts: tried at each level from the most detailed; when even
 * the tersest is too long, its oldest lines are dropped (with a note of how many) until it fits or
 * only the newest line is left.
 *
 * @example
 * fallbackDigest({ messages: span, fits: (text) => estimateText(text) <= room });
 * // "user: Fix the test\n[tool read_file(src/a.ts) ran, result elided]\n…"
 */
export function fallbackDigest({
  messages,
  fits,
}: {
  messages: readonly Message[];
  fits: (text: string) => boolean;
}): string {
  let lines: string[] = [];
  for (const level of LEVELS) {
    lines = digestLines(messages, level);
    const text = lines.join('\n');
    if (fits(text)) return text;
  }
  // Drop the oldest lines, halving the count kept until the rest fits.
  for (let keep = Math.floor(lines.length / 2); keep >= 1; keep = Math.floor(keep / 2)) {
    const text = [
      `[… ${lines.length - keep} earlier lines omitted]`,
      ...lines.slice(lines.length - keep),
    ].join('\n');
    if (fits(text) || keep === 1) return text;
  }
  return lines.join('\n');
}

/**
 * @module
 * Recallable placeholders: every span Spillway prunes, elides or compacts leaves a marker with an id
 * (`[elided #41: read_file src/app.ts, 3,210 tokens]`), and the `recall` tool fetches the span back.
 */
import { contentText, type Message, type ToolDefinition } from '../transcript/index.js';
import { serializeTranscript } from './serialize-transcript.js';

/** What kind of placeholder a span belongs to. */
export type RecallKind = 'truncated' | 'outline' | 'elided' | 'pruned' | 'compacted' | 'truncation';

/** One span a placeholder stands for: the messages as they were before Spillway left them out. */
export interface RecallSpan {
  /** The id the placeholder names (`41` for `#41`). */
  id: string;
  kind: RecallKind;
  /** What the span is, for a reply header (`read_file src/app.ts`, `37 messages summarized`). */
  label: string;
  messages: readonly Message[];
}

/**
 * Everything recallable: spans from `FitResult.recall` (compressed results and pruned turns) and
 * from compactions (`CompactionResult.recall`, or rebuilt from the store's compaction records).
 */
export type RecallRecord = readonly RecallSpan[];

/** Arguments of {@link recall}. */
export interface RecallInput {
  /** The placeholder's id, with or without `#`. */
  id: string | number;
  /** Lines to return, 1-based and inclusive (`{ start: 120, end: 180 }`). */
  slice?: { start?: number; end?: number };
}

/** What {@link recall} returns. */
export type RecallResult =
  | {
      ok: true;
      id: string;
      kind: RecallKind;
      /** The span's text (or the slice asked for), with a header line. */
      text: string;
      lines: { start: number; end: number; total: number };
      /** True when lines after `end` were left out to stay within `maxChars`. */
      more: boolean;
    }
  | { ok: false; code: 'unknown_id' | 'invalid_slice'; message: string };

/** The most characters one recall returns (about 4,000 tokens of prose): ask for a slice for more. */
export const RECALL_MAX_CHARS = 16_000;

/** The tool a loop offers the model so it can fetch what Spillway left out. */
export const RECALL_TOOL: ToolDefinition = {
  name: 'recall',
  description:
    'Fetch text that was left out of the conversation to save room. Placeholders such as "[elided #41: …]", "[… 98 lines cut · recall #41]", "[pruned #12: …]" or "[compacted #7: …]" name an id; pass it to get the original back. For a long span, pass lines to read part of it.',
  parameters: {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'The placeholder id, e.g. "41".' },
      lines: { type: 'string', description: 'Optional line range, e.g. "120-180".' },
    },
    required: ['id'],
    additionalProperties: false,
  },
  source: 'spillway',
};

/**
 * Reads the `recall` tool's arguments (`{"id":"41","lines":"120-180"}`) into a {@link RecallInput};
 * `undefined` when they name no id.
 */
export function parseRecallArguments(args: string | Record<string, unknown>): RecallInput | undefined {
  let value: unknown = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const raw = value as Record<string, unknown>;
  const id = typeof raw.id === 'number' ? String(raw.id) : typeof raw.id === 'string' ? raw.id : undefined;
  if (id === undefined || id.trim() === '') return undefined;
  const input: RecallInput = { id };
  const lines = typeof raw.lines === 'string' ? raw.lines : undefined;
  const range = lines === undefined ? null : /^\s*(\d+)?\s*(?:-\s*(\d+)?)?\s*$/.exec(lines);
  if (range && lines !== undefined) {
    const slice: { start?: number; end?: number } = {};
    if (range[1] !== undefined) slice.start = Number(range[1]);
    if (range[2] !== undefined) slice.end = Number(range[2]);
    else if (range[1] !== undefined && !lines.includes('-')) slice.end = Number(range[1]);
    input.slice = slice;
  }
  return input;
}

/** The text of a span: a single tool result as its content, anything else as labelled text. */
export function spanText(span: RecallSpan): string {
  const only = span.messages.length === 1 ? span.messages[0] : undefined;
  if (only?.role === 'tool') return contentText(only.content);
  return serializeTranscript(span.messages);
}

/**
 * Fetches a placeholder's span back from `record`: the whole text, or the lines asked for, capped at
 * `maxChars` (the reply says which lines come next). Pure: the record is data the caller keeps.
 *
 * @example
 * const result = recall({ id: '41', slice: { start: 1, end: 80 } }, [...compaction.recall, ...fitted.recall]);
 * const content = result.ok ? result.text : result.message;
 */
export function recall(
  { id, slice }: RecallInput,
  record: RecallRecord,
  { maxChars = RECALL_MAX_CHARS }: { maxChars?: number } = {},
): RecallResult {
  const key = String(id).trim().replace(/^#/, '');
  let span: RecallSpan | undefined;
  for (const item of record) if (item.id === key) span = item;
  if (span === undefined)
    return {
      ok: false,
      code: 'unknown_id',
      message: `nothing to recall under #${key}; use an id from a placeholder that is still in the conversation`,
    };
  const lines = spanText(span).split('\n');
  const total = lines.length;
  const start = slice?.start ?? 1;
  const end = Math.min(slice?.end ?? total, total);
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || start > total || end < start)
    return {
      ok: false,
      code: 'invalid_slice',
      message: `#${key} has lines 1-${total}; ask for a range inside it, e.g. "1-${Math.min(total, 200)}"`,
    };
  let text = '';
  let last = start - 1;
  for (let index = start - 1; index < end; index++) {
    const line = lines[index] as string;
    if (text.length + line.length + 1 > maxChars && index > start - 1) break;
    text += `${line}\n`;
    last = index + 1;
  }
  const more = last < end;
  const header = `[recalled #${key}: ${span.label}, lines ${start}-${last} of ${total}]`;
  const footer = more ? `\n[… more: call recall with id "${key}" and lines "${last + 1}-${end}"]` : '';
  return {
    ok: true,
    id: key,
    kind: span.kind,
    text: `${header}\n${text.trimEnd()}${footer}`,
    lines: { start, end: last, total },
    more,
  };
}

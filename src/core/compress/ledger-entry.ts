/**
 * @module
 * What a tool call did, in the words a cut's marker uses to name it and say how to get it back: a
 * file read (with its line range when the call gave one), a command run, or another tool's call.
 */
import type { Message, ToolCall } from '../transcript/index.js';
import { callArguments, callPath, primaryArgument } from './tool-activity.js';

/** One call as a marker names it. */
export interface LedgerEntry {
  kind: 'read' | 'ran' | 'called';
  /** `src/app.ts lines 10–40`, `` `pytest -x` ``, `search_code parseUser`. */
  text: string;
}

/** The longest command a marker quotes. */
const MAX_COMMAND_CHARS = 60;

/** Shell commands that only print part of one file: `sed -n '10,40p' f`, `head -n 20 f`, `cat f`. */
const SED_RANGE = /^sed\s+-n\s+['"]?(\d+),(\d+)p['"]?\s+([^\s|;&>]+)\s*$/;
const NL_SED_RANGE = /^(?:nl|cat)\s+(?:-\w+\s+)*([^\s|;&>]+)\s*\|\s*sed\s+-n\s+['"]?(\d+),(\d+)p['"]?\s*$/;
const HEAD = /^head\s+(?:-n\s*)?-?(\d+)\s+([^\s|;&>]+)\s*$/;
const CAT = /^(?:cat|open)\s+(?:-\w+\s+)*([^\s|;&>]+)(?:\s+(\d+))?\s*$/;

function lines(from: number, to: number): string {
  return from === to ? `line ${from}` : `lines ${from}–${to}`;
}

/** A leading `cd DIR &&` (agents prefix every command with it) says nothing of what the command did. */
const CD_PREFIX = /^cd\s+\S+\s*&&\s*/;

function fromCommand(command: string): LedgerEntry {
  const line = command.trim().replace(CD_PREFIX, '');
  let match = SED_RANGE.exec(line);
  if (match) return { kind: 'read', text: `${match[3]} ${lines(Number(match[1]), Number(match[2]))}` };
  match = NL_SED_RANGE.exec(line);
  if (match) return { kind: 'read', text: `${match[1]} ${lines(Number(match[2]), Number(match[3]))}` };
  match = HEAD.exec(line);
  if (match) return { kind: 'read', text: `${match[2]} ${lines(1, Number(match[1]))}` };
  match = CAT.exec(line);
  if (match)
    return { kind: 'read', text: match[2] ? `${match[1]} around line ${match[2]}` : (match[1] as string) };
  const oneLine = line.replace(/\s+/g, ' ');
  const cut = oneLine.length <= MAX_COMMAND_CHARS ? oneLine : `${oneLine.slice(0, MAX_COMMAND_CHARS - 1)}…`;
  return { kind: 'ran', text: `\`${cut}\`` };
}

/** The line range a file-reading call asked for, from its arguments. */
function argumentRange(args: Record<string, unknown>): string | undefined {
  const range = args.view_range;
  if (Array.isArray(range) && typeof range[0] === 'number' && typeof range[1] === 'number')
    return range[1] < 0 ? `lines ${range[0]}–end` : lines(range[0], range[1]);
  const offset = typeof args.offset === 'number' ? args.offset : undefined;
  const limit = typeof args.limit === 'number' ? args.limit : undefined;
  if (offset === undefined && limit === undefined) return undefined;
  const from = offset ?? 1;
  return limit === undefined ? `lines ${from}–end` : lines(from, from + limit - 1);
}

/**
 * What a call did, as a marker names it.
 *
 * @example
 * ledgerEntry({ name: 'bash', arguments: '{"command":"sed -n \'10,40p\' src/app.py"}' });
 * // { kind: 'read', text: 'src/app.py lines 10–40' }
 */
export function ledgerEntry(call: Pick<ToolCall, 'name' | 'arguments'>): LedgerEntry {
  const args = callArguments(call);
  const path = callPath(call);
  if (
    path !== undefined &&
    (args.command === undefined || args.command === 'view' || args.command === 'read')
  ) {
    const range = argumentRange(args);
    if (/read|view|open|cat|get_?file|show/i.test(call.name) || args.command === 'view')
      return { kind: 'read', text: range ? `${path} ${range}` : path };
  }
  if (typeof args.command === 'string' && args.command.trim() !== '' && path === undefined)
    return fromCommand(args.command);
  const primary = primaryArgument(call);
  return { kind: 'called', text: primary === undefined ? call.name : `${call.name} ${primary}` };
}

/** How to get back what an entry names, where no recall tool is offered. */
export function ledgerBack(kind: LedgerEntry['kind']): string {
  return kind === 'read'
    ? 'read it again to see it'
    : kind === 'ran'
      ? 'run it again to see it'
      : 'call it again to see it';
}

/** The entries of every tool call in `messages`, in order: what a span of history read and ran. */
export function ledgerEntries(messages: readonly Message[]): LedgerEntry[] {
  return messages.flatMap((message) =>
    message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => ledgerEntry(call)) : [],
  );
}

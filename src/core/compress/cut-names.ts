/**
 * @module
 * The names a cut takes out of sight: identifiers (and dotted or slashed paths) found in the messages
 * a cut leaves out and nowhere in what it keeps, those found most often first. A marker lists them,
 * so the model knows which names it no longer sees and can read again where they were; an agent's
 * next step often reuses exactly those (`npm run eval -- kept`). Deterministic and linear in the
 * size of the messages.
 */
import { contentText, type Message } from '../transcript/index.js';
import { callArguments } from './tool-activity.js';

/**
 * A path (`src/app.py`, `/tmp/out.txt`: segments of any length joined by slashes) or an identifier of
 * four or more characters, dotted or not (`pkg.mod.name`).
 */
const NAME =
  /\/?(?:[A-Za-z0-9_.-]+\/)+[A-Za-z0-9_.-]*[A-Za-z0-9_]|[A-Za-z_][A-Za-z0-9_]{3,}(?:\.[A-Za-z_][A-Za-z0-9_]*)*/g;
/** Names are taken from the first this many characters of a message: a bound on the work per cut. */
const NAMES_FROM_CHARS = 40_000;

/** The text of a message a name can come from: its content, and each tool call's string arguments. */
function textOf(message: Message): string {
  const parts = [contentText(message.content)];
  if (message.role === 'assistant')
    for (const call of message.toolCalls ?? [])
      for (const value of Object.values(callArguments(call)))
        if (typeof value === 'string') parts.push(value);
  return parts.join('\n').slice(0, NAMES_FROM_CHARS);
}

/** Every name of `text` and its parts of four or more characters (`src/app.py` also yields `app.py`). */
function eachName(text: string, visit: (name: string) => void): void {
  for (const match of text.matchAll(NAME)) {
    const name = match[0];
    visit(name);
    if (name.includes('/') || name.includes('.')) for (const part of partsOf(name)) visit(part);
  }
}

/** The parts of a path or dotted name of four or more characters: its base name, then each segment. */
function partsOf(name: string): string[] {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const parts = base !== name && base.length >= 4 ? [base] : [];
  for (const part of name.split(/[./]/)) if (part.length >= 4 && part !== base) parts.push(part);
  return parts;
}

/** Options of {@link namesOnlyIn}. */
export interface NamesOnlyInOptions {
  /** The messages the cut leaves out. */
  cut: readonly Message[];
  /** The messages the request still carries (the head, the turns kept). */
  kept: readonly Message[];
  /** The longest the names may be, joined with `, `. */
  maxChars: number;
}

/**
 * Names found in `cut` and nowhere in `kept`, the most frequent first (ties: the first found first),
 * as many as fit `maxChars` joined with `, `.
 *
 * @example
 * namesOnlyIn({ cut: dropped, kept: request, maxChars: 600 }); // ['_cstack', 'separable.py', …]
 */
export function namesOnlyIn({ cut, kept, maxChars }: NamesOnlyInOptions): string[] {
  if (maxChars <= 0 || cut.length === 0) return [];
  const seen = new Set<string>();
  for (const message of kept) eachName(textOf(message), (name) => seen.add(name));
  const counts = new Map<string, number>();
  for (const message of cut)
    eachName(textOf(message), (name) => {
      if (!seen.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
    });
  // A Map keeps first-found order, and the sort is stable: ties stay in that order.
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  // A name inside one already listed (`app.py` in `src/app.py`) is listed by it: it is left out, and
  // a path takes the place of its parts listed before it.
  let names: string[] = [];
  let listed = '';
  let length = -2;
  for (const [name] of ranked) {
    if (listed.includes(name)) continue;
    const held =
      name.includes('/') || name.includes('.') ? partsOf(name).filter((part) => names.includes(part)) : [];
    const freed = held.reduce((sum, part) => sum + part.length + 2, 0);
    if (length - freed + name.length + 2 > maxChars) continue;
    if (held.length > 0) {
      names = names.filter((part) => !held.includes(part));
      listed = names.join('\n');
    }
    names.push(name);
    listed += `\n${name}`;
    length += name.length + 2 - freed;
  }
  return names;
}

/**
 * @module
 * The names a cut takes out of sight: identifiers (and dotted or slashed paths) found in the messages
 * a cut leaves out and nowhere in what it keeps, those found most often first. A marker lists them,
 * so the model knows which names it no longer sees and can read again where they were; an agent's
 * next step often reuses exactly those (`npm run eval -- kept`). Deterministic, and linear in the
 * size of the messages the first time each is read, in their names after.
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

/**
 * The names of each message, as {@link eachName} visits them, found once per message object: a cut
 * is weighed several ways per send, and the history it weighs is the same messages send after send
 * (messages are not changed once made).
 */
const NAMES = new WeakMap<Message, readonly string[]>();

function namesIn(message: Message): readonly string[] {
  let names = NAMES.get(message);
  if (names === undefined) {
    const found: string[] = [];
    eachName(textOf(message), (name) => found.push(name));
    names = found;
    NAMES.set(message, names);
  }
  return names;
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
  for (const message of kept) for (const name of namesIn(message)) seen.add(name);
  const counts = new Map<string, number>();
  for (const message of cut)
    for (const name of namesIn(message)) if (!seen.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
  // Most frequent first, ties in the order found (a Map keeps it): names grouped by their count.
  const byCount: string[][] = [];
  for (const [name, count] of counts) {
    const group = byCount[count];
    if (group === undefined) byCount[count] = [name];
    else group.push(name);
  }
  // A name inside one already listed (`app.py` in `src/app.py`) is listed by it: it is left out, and
  // a path takes the place of its parts listed before it.
  const listed = new ListedNames();
  let length = -2;
  for (let count = byCount.length - 1; count > 0; count--) {
    for (const name of byCount[count] ?? []) {
      const compound = name.includes('/') || name.includes('.');
      // Only a path or dotted name can make room (by taking its parts' places): any other that does
      // not fit is passed over at once.
      if (!compound && length + name.length + 2 > maxChars) continue;
      if (listed.holdsInside(name)) continue;
      const held = compound ? partsOf(name).filter((part) => listed.has(part)) : [];
      const freed = held.reduce((sum, part) => sum + part.length + 2, 0);
      if (length - freed + name.length + 2 > maxChars) continue;
      for (const part of held) listed.remove(part);
      listed.add(name);
      length += name.length + 2 - freed;
    }
  }
  return listed.names();
}

/** Characters of the pieces {@link ListedNames} indexes its names by. */
const GRAM = 4;

/**
 * The names listed so far, in order, found by any piece of them: whether a name is inside one of
 * them is a look at the few that share its first {@link GRAM} characters, not a search of them all.
 */
class ListedNames {
  readonly #order = new Set<string>();
  readonly #byGram = new Map<string, Set<string>>();

  has(name: string): boolean {
    return this.#order.has(name);
  }

  /** Whether `name` is inside a listed name (or is one). */
  holdsInside(name: string): boolean {
    if (name.length < GRAM) {
      for (const listed of this.#order) if (listed.includes(name)) return true;
      return false;
    }
    for (const listed of this.#byGram.get(name.slice(0, GRAM)) ?? []) if (listed.includes(name)) return true;
    return false;
  }

  add(name: string): void {
    this.#order.add(name);
    for (let at = 0; at + GRAM <= name.length; at++) {
      const gram = name.slice(at, at + GRAM);
      const holders = this.#byGram.get(gram);
      if (holders === undefined) this.#byGram.set(gram, new Set([name]));
      else holders.add(name);
    }
  }

  remove(name: string): void {
    this.#order.delete(name);
    for (let at = 0; at + GRAM <= name.length; at++)
      this.#byGram.get(name.slice(at, at + GRAM))?.delete(name);
  }

  /** The names, in the order they were listed. */
  names(): string[] {
    return [...this.#order];
  }
}

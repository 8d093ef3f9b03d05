/**
 * @module
 * A compaction remembered for a caller that resends its whole history (a proxy's client, an SDK
 * caller): a replacement for a hashed prefix of the history, reused on every later request whose
 * prefix hashes the same, so the same history is sent as the same bytes.
 */
import { digestMessages, type Message } from '../transcript/index.js';

/**
 * A replacement for a conversation's first `covered` messages (a compaction's summary and what it
 * kept of them).
 */
export interface HistoryPrefix {
  covered: number;
  /** Hash of the messages it replaces. */
  hash: string;
  /** Messages, or `{ ref }` for the caller's own message at that index (its head, say). */
  replacement: (Message | { ref: number })[];
}

/** A text hash: the driver's default is `hashText`; the proxy passes SHA-256. */
export type HashText = (text: string) => string;

/** The hash of messages as JSON, one per line. */
export function hashMessages(messages: readonly Message[], hash: HashText): string {
  return digestMessages(messages, hash);
}

/**
 * The history with a stored prefix replaced, or `undefined` when this history does not start with
 * the messages the prefix replaced (the caller edited or dropped them). Entries that stand for one of
 * the caller's own messages are that message, as this request has it.
 */
export function applyHistoryPrefix(
  messages: readonly Message[],
  prefix: HistoryPrefix,
  hash: HashText,
): Message[] | undefined {
  if (prefix.covered <= 0 || messages.length <= prefix.covered) return undefined;
  if (hashMessages(messages.slice(0, prefix.covered), hash) !== prefix.hash) return undefined;
  const replacement: Message[] = [];
  for (const entry of prefix.replacement) {
    if ('role' in entry) replacement.push(entry);
    else {
      const own = messages[entry.ref];
      if (own === undefined || entry.ref >= prefix.covered) return undefined;
      replacement.push(own);
    }
  }
  return [...replacement, ...messages.slice(prefix.covered)];
}

const textOf = (message: Message) => JSON.stringify(message);

/**
 * What a compaction did, as a prefix to store: `sent` is what the compaction started from (the
 * caller's history with `previous` applied), `compacted` what it produced. Their common tail is what
 * was kept; the rest of `compacted` replaces the rest of `sent`, the newest message too when the
 * compaction changed it (a tool result shortened to fit): the next request, which extends the
 * history, then carries the same replacement. `undefined` when the compaction changed nothing.
 */
export function prefixFromCompaction({
  caller,
  sent,
  compacted,
  previous,
  hash,
}: {
  /** The history as the caller sent it. */
  caller: readonly Message[];
  sent: readonly Message[];
  compacted: readonly Message[];
  previous?: HistoryPrefix;
  hash: HashText;
}): HistoryPrefix | undefined {
  let kept = 0;
  while (kept < sent.length && kept < compacted.length) {
    const left = sent[sent.length - 1 - kept] as Message;
    const right = compacted[compacted.length - 1 - kept] as Message;
    if (left !== right && textOf(left) !== textOf(right)) break;
    kept++;
  }
  const replaced = sent.length - kept;
  if (replaced === 0) return undefined;
  const previousLength = previous?.replacement.length ?? 0;
  // What the compaction replaced, counted in the caller's messages: the earlier replacement stands
  // for `previous.covered` of them.
  const covered = (previous?.covered ?? 0) + Math.max(0, replaced - previousLength);
  if (covered <= 0 || covered > caller.length) return undefined;
  const own = new Map<string, number>();
  caller.slice(0, covered).forEach((message, index) => {
    const text = textOf(message);
    if (!own.has(text)) own.set(text, index);
  });
  const carried = previous ? previous.replacement.slice(Math.min(replaced, previousLength)) : [];
  const replacement: HistoryPrefix['replacement'] = [
    ...compacted.slice(0, compacted.length - kept).map((message) => {
      const ref = own.get(textOf(message));
      return ref === undefined ? message : { ref };
    }),
    ...carried,
  ];
  return { covered, hash: hashMessages(caller.slice(0, covered), hash), replacement };
}

/** A stored prefix, checked: anything else (another version, a hand) is dropped, not trusted. */
export function parseHistoryPrefix(value: unknown): HistoryPrefix | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const prefix = value as Record<string, unknown>;
  const ok =
    Number.isInteger(prefix.covered) &&
    typeof prefix.hash === 'string' &&
    Array.isArray(prefix.replacement) &&
    prefix.replacement.every(
      (entry) =>
        typeof entry === 'object' &&
        entry !== null &&
        (typeof (entry as { role?: unknown }).role === 'string' ||
          Number.isInteger((entry as { ref?: unknown }).ref)),
    );
  return ok ? (value as HistoryPrefix) : undefined;
}

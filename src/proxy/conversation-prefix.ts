/**
 * @module
 * Conversations as the proxy sees them: a client resends the whole history on every request, so a
 * conversation is known by a hash of its head (system prompt and first user message), and a
 * compaction is remembered as a replacement for a hashed prefix of the history. The same history
 * then gets the same bytes on every request, from any proxy instance sharing the store.
 */
import { createHash } from 'node:crypto';
import { type Message, splitTurns } from '../core/index.js';
import type { StoredPrefix } from './proxy-state.js';

/** A SHA-256 of messages as JSON, one per line (the normalized messages, so both formats hash alike). */
export function hashMessages(messages: readonly Message[]): string {
  const hash = createHash('sha256');
  for (const message of messages) hash.update(JSON.stringify(message)).update('\n');
  return hash.digest('hex');
}

/**
 * The key of the conversation a request belongs to: the hash of its head, with the model and, when
 * the client sent credentials, who it is (`credentialIdentity`): two clients whose conversations
 * start alike never share what the proxy stores for them.
 *
 * @example
 * conversationKey({ model: 'glm5.2', messages: request.messages, credential: exchange.credential }); // '3f1c…'
 */
export function conversationKey({
  model,
  messages,
  credential,
}: {
  model: string | undefined;
  messages: readonly Message[];
  /** A hash of the client's credential headers, never the secret. */
  credential?: string | undefined;
}): string {
  const { head } = splitTurns(messages);
  const headHash = hashMessages(messages.slice(head.start, head.end));
  // Without credentials the key is what it always was, so stored conversations keep their state.
  const identity = credential === undefined ? '' : `${credential}\n`;
  return createHash('sha256')
    .update(`${model ?? ''}\n${identity}${headHash}`)
    .digest('hex');
}

/**
 * The history with a stored prefix replaced, or `undefined` when this history does not start with
 * the messages the prefix replaced (the client edited or dropped them). Entries that stand for one
 * of the client's own messages are that message, as this request read it (so it is written back
 * exactly as the client sent it).
 */
export function applyStoredPrefix(messages: Message[], prefix: StoredPrefix): Message[] | undefined {
  if (prefix.covered <= 0 || messages.length <= prefix.covered) return undefined;
  if (hashMessages(messages.slice(0, prefix.covered)) !== prefix.hash) return undefined;
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

function textOf(message: Message): string {
  return JSON.stringify(message);
}

/**
 * What a compaction did, as a prefix to store: `sent` is what the compaction started from (the
 * client's history, with any earlier stored prefix already applied as `previous`), `compacted` what
 * it produced. Their common tail is what was kept; the rest of `compacted` replaces the rest of
 * `sent`. Returns `undefined` when the compaction kept nothing in common (nothing reusable) or
 * changed nothing.
 *
 * @example
 * const prefix = prefixFromCompaction({ client: history, sent: history, compacted: result.messages });
 * // next request: applyStoredPrefix(nextHistory, prefix) → the same summary, the same bytes
 */
export function prefixFromCompaction({
  client,
  sent,
  compacted,
  previous,
}: {
  /** The history as the client sent it. */
  client: readonly Message[];
  sent: readonly Message[];
  compacted: readonly Message[];
  previous?: StoredPrefix;
}): StoredPrefix | undefined {
  let kept = 0;
  while (kept < sent.length && kept < compacted.length) {
    const left = sent[sent.length - 1 - kept] as Message;
    const right = compacted[compacted.length - 1 - kept] as Message;
    if (left !== right && textOf(left) !== textOf(right)) break;
    kept++;
  }
  const replaced = sent.length - kept;
  if (kept === 0 || replaced === 0) return undefined;
  const previousLength = previous?.replacement.length ?? 0;
  // What the compaction replaced, counted in the client's messages: the earlier replacement stands
  // for `previous.covered` of them.
  const covered = (previous?.covered ?? 0) + Math.max(0, replaced - previousLength);
  if (covered <= 0 || covered >= client.length) return undefined;
  const own = new Map<string, number>();
  client.slice(0, covered).forEach((message, index) => {
    const text = textOf(message);
    if (!own.has(text)) own.set(text, index);
  });
  const carried = previous ? previous.replacement.slice(Math.min(replaced, previousLength)) : [];
  const replacement: StoredPrefix['replacement'] = [
    ...compacted.slice(0, compacted.length - kept).map((message) => {
      const ref = own.get(textOf(message));
      return ref === undefined ? message : { ref };
    }),
    ...carried,
  ];
  return { covered, hash: hashMessages(client.slice(0, covered)), replacement };
}

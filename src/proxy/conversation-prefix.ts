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
 * The key of the conversation a request belongs to: the hash of its head, with the model.
 *
 * @example
 * conversationKey({ model: 'glm5.2', messages: request.messages }); // '3f1c…'
 */
export function conversationKey({
  model,
  messages,
}: {
  model: string | undefined;
  messages: readonly Message[];
}): string {
  const { head } = splitTurns(messages);
  const headHash = hashMessages(messages.slice(head.start, head.end));
  return createHash('sha256')
    .update(`${model ?? ''}\n${headHash}`)
    .digest('hex');
}

/**
 * The history with a stored prefix replaced, or `undefined` when this history does not start with
 * the messages the prefix replaced (the client edited or dropped them).
 */
export function applyStoredPrefix(messages: Message[], prefix: StoredPrefix): Message[] | undefined {
  if (prefix.covered <= 0 || messages.length <= prefix.covered) return undefined;
  if (hashMessages(messages.slice(0, prefix.covered)) !== prefix.hash) return undefined;
  return [...(prefix.replacement as Message[]), ...messages.slice(prefix.covered)];
}

function same(left: Message | undefined, right: Message | undefined): boolean {
  return left === right || (left !== undefined && JSON.stringify(left) === JSON.stringify(right));
}

/**
 * What a compaction did, as a prefix to store: `sent` is what the compaction started from (the
 * client's history, with any earlier stored prefix already applied as `previous`), `compacted` what
 * it produced. Their common tail is what was kept; the rest of `compacted` replaces the rest of
 * `sent`. Returns `undefined` when the compaction kept nothing in common (nothing reusable) or
 * changed nothing.
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
  while (
    kept < sent.length &&
    kept < compacted.length &&
    same(sent[sent.length - 1 - kept], compacted[compacted.length - 1 - kept])
  )
    kept++;
  const replaced = sent.length - kept;
  if (kept === 0 || replaced === 0) return undefined;
  const replacement = compacted.slice(0, compacted.length - kept);
  const previousLength = previous?.replacement.length ?? 0;
  // What the compaction replaced, counted in the client's messages: the earlier replacement stands
  // for `previous.covered` of them.
  const covered = (previous?.covered ?? 0) + Math.max(0, replaced - previousLength);
  const carried = previous
    ? (previous.replacement as Message[]).slice(Math.min(replaced, previousLength))
    : [];
  const full = [...replacement, ...carried];
  if (covered <= 0 || covered >= client.length) return undefined;
  return { covered, hash: hashMessages(client.slice(0, covered)), replacement: full };
}

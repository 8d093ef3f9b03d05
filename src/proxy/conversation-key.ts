/**
 * @module
 * Conversations as the proxy sees them: a client resends the whole history on every request, so a
 * conversation is known by a hash of its head (system prompt and opening user messages) and its model.
 */
import { createHash } from 'node:crypto';
import { ListMemo, LruCache, type Message, splitTurns } from '../core/index.js';
import { sha256 } from './sha256.js';

/** Heads hashed before: a client resends the same head, read into the same message objects. */
const HASHED = new ListMemo<string>();

/** A SHA-256 of messages as JSON, one per line (the normalized messages, so both formats hash alike). */
export function hashMessages(messages: readonly Message[]): string {
  return HASHED.get(messages, () => {
    const hash = createHash('sha256');
    for (const message of messages) hash.update(JSON.stringify(message)).update('\n');
    return hash.digest('hex');
  });
}

/**
 * Keys made lately, by what they hash: the requests of a conversation all have its key, and a
 * SHA-256 costs microseconds. The 1,024 used last are kept.
 */
const KEYS = new LruCache<string, string>({ maxEntries: 1_024 });

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
  const identity = credential === undefined ? '' : `${credential}\n`;
  const text = `${model ?? ''}\n${identity}${headHash}`;
  let key = KEYS.get(text);
  if (key === undefined) {
    key = sha256(text);
    KEYS.set(text, key);
  }
  return key;
}

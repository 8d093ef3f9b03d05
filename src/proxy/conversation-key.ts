/**
 * @module
 * Conversations as the proxy sees them: a client resends the whole history on every request, so a
 * conversation is known by a hash of its head (system prompt and opening user messages) and its model.
 */
import { createHash } from 'node:crypto';
import { type Message, splitTurns } from '../core/index.js';

/** SHA-256 of a text, as hex: the proxy's hash for remembered prefixes. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The last hash of messages ending with a message object, with the messages it covered: a client
 * resends the same head with every request, read into the same message objects (messages are not
 * changed once made), so the same objects hash as they did.
 */
const HASHED = new WeakMap<Message, { messages: readonly Message[]; hash: string }>();

/** A SHA-256 of messages as JSON, one per line (the normalized messages, so both formats hash alike). */
export function hashMessages(messages: readonly Message[]): string {
  const last = messages.at(-1);
  const known = last === undefined ? undefined : HASHED.get(last);
  if (
    known !== undefined &&
    known.messages.length === messages.length &&
    known.messages.every((message, index) => message === messages[index])
  )
    return known.hash;
  const hash = createHash('sha256');
  for (const message of messages) hash.update(JSON.stringify(message)).update('\n');
  const digest = hash.digest('hex');
  if (last !== undefined) HASHED.set(last, { messages: messages.slice(), hash: digest });
  return digest;
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
  const identity = credential === undefined ? '' : `${credential}\n`;
  return sha256(`${model ?? ''}\n${identity}${headHash}`);
}

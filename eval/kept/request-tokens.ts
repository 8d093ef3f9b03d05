/**
 * @module
 * Prompt tokens of the requests the `kept` evaluation compares, on the replay provider's count (the
 * emulator's chat template, o200k): each message counted once and cached, a request as the sum of its
 * messages plus the template's fixed part. Every strategy is measured the same way.
 */
import type { Message } from '../../src/core/index.js';
import { countRequest } from '../../test/support/transcript-replay/index.js';

const cache = new WeakMap<Message, number>();
/** Tokens of a request with no message: the template's generation prompt. */
export const EMPTY_REQUEST = countRequest({ format: 'openai', messages: [], tools: [], extra: {} });

/** Tokens one message adds to a request. */
export function messageTokens(message: Message): number {
  let tokens = cache.get(message);
  if (tokens === undefined) {
    tokens = countRequest({ format: 'openai', messages: [message], tools: [], extra: {} }) - EMPTY_REQUEST;
    cache.set(message, tokens);
  }
  return tokens;
}

/** Tokens of a request made of `messages`. */
export function requestTokens(messages: readonly Message[]): number {
  let total = EMPTY_REQUEST;
  for (const message of messages) total += messageTokens(message);
  return total;
}

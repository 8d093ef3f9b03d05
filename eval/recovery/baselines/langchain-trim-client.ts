/**
 * LangChain `trimMessages` before every send, with its approximate counter, as bench/langchain-trim.ts
 * calls it: the system prompt and the task kept in front, the newest messages that fit the window
 * minus `max_tokens` after them, starting at a tool call. No recovery: an overflow ends the session.
 */

import { approximateCounter, LangChainMirror, trimForSend } from '../../../bench/langchain-trim.js';
import type { ModelClient } from '../../../src/providers/index.js';
import { clientWith } from './summary-request.js';

export function langchainTrimClient(
  inner: ModelClient,
  { window, outputCap }: { window: number; outputCap: number },
): ModelClient {
  return clientWith(inner, async (request, options) => {
    const mirror = new LangChainMirror();
    const converted = request.messages.map((message) => mirror.toLangChain(message));
    const kept = await trimForSend({
      head: converted.slice(0, 2),
      history: converted.slice(2),
      maxTokens: window - outputCap,
      counter: approximateCounter,
    });
    return inner.send({ ...request, messages: mirror.originals(kept) }, options);
  });
}

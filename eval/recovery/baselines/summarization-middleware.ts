/**
 * A summarization middleware that compacts at a threshold, as LangChain's `summarizationMiddleware`
 * does (langchainjs `libs/langchain/src/agents/middleware/summarization.ts`, commit 02e85482): before
 * every model call the conversation (the agent's system prompt is kept apart) is counted with
 * characters / 4; at the trigger (here `trigger: { fraction: 0.8 }` of the advertised window) all but
 * the newest 20 messages (its default `keep: { messages: 20 }`, moved back to the tool call when the
 * cut lands on a tool result) are summarized by the same model, from their last 4,000 counted tokens,
 * and replaced by one user message holding the summary. Its state persists between calls. There is
 * no overflow recovery: a rejection ends the session.
 */
import type { ChatRequest, Message } from '../../../src/core/index.js';
import type { ModelClient } from '../../../src/providers/index.js';
import { approximateTokens, messageChars } from './approximate-tokens.js';
import { clientWith, requestSummary, transcriptText } from './summary-request.js';

const TRIGGER_FRACTION = 0.8;
const MESSAGES_TO_KEEP = 20;
const TRIM_TOKENS_TO_SUMMARIZE = 4_000;

/** The index to cut at so that the newest `keep` messages stay, never between a call and its result. */
export function safeCutoff(messages: readonly Message[], keep: number): number {
  if (messages.length <= keep) return 0;
  let cutoff = messages.length - keep;
  while (cutoff > 0 && messages[cutoff]?.role === 'tool') cutoff--;
  return cutoff;
}

/** The newest messages within `limit` counted tokens, the oldest of them cut to its end if need be. */
function lastTokens(messages: readonly Message[], limit: number): string {
  let room = limit * 4;
  const kept: string[] = [];
  for (let index = messages.length - 1; index >= 0 && room > 0; index--) {
    const text = transcriptText([messages[index] as Message]);
    kept.unshift(messageChars(messages[index] as Message) <= room ? text : text.slice(-room));
    room -= messageChars(messages[index] as Message);
  }
  return kept.join('\n');
}

export function summarizationMiddlewareClient(
  inner: ModelClient,
  { window }: { window: number },
): ModelClient {
  let summary: Message | undefined;
  /** Messages of the caller's history (after the system prompt) the summary stands for. */
  let covered = 0;
  const conversation = (request: ChatRequest): Message[] => [
    ...(summary ? [summary] : []),
    ...request.messages.slice(1 + covered),
  ];
  return clientWith(inner, async (request, options) => {
    const state = conversation(request);
    if (approximateTokens(state) >= Math.floor(TRIGGER_FRACTION * window)) {
      const cutoff = safeCutoff(state, MESSAGES_TO_KEEP);
      if (cutoff > 0) {
        const text = await requestSummary(
          inner,
          request,
          {
            prompt: `Write down the context needed to continue this work, replacing the history below.\n${lastTokens(state.slice(0, cutoff), TRIM_TOKENS_TO_SUMMARIZE)}`,
            ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
          },
          options,
        );
        covered += cutoff - (summary ? 1 : 0);
        summary = { role: 'user', content: `Summary of the conversation so far:\n\n${text}` };
      }
    }
    return inner.send(
      { ...request, messages: [request.messages[0] as Message, ...conversation(request)] },
      options,
    );
  });
}

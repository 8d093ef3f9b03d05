/**
 * Threshold compaction as pi's coding agent does it (pi-mono
 * `packages/coding-agent/src/core/compaction/compaction.ts`, commit 04309178): when the last reply's
 * usage (prompt + completion) passes the window minus `reserveTokens`, or when the provider rejects
 * a request as too large, everything before a cut point is summarized by the same model (reply cap
 * 80% of the reserve; an earlier summary is updated rather than replaced) and the request continues
 * with the summary as a user message and the newest messages verbatim. The cut keeps about
 * `keepRecentTokens` (characters / 4, counted back from the newest) and falls on a user or assistant
 * message, never on a tool result. pi's defaults (reserve 16,384 and keep 20,000 tokens, for 200k
 * windows) are scaled to the scenario's window. After an overflow it compacts and retries once.
 */
import type { ChatRequest, Message } from '../../../src/core/index.js';
import { type ModelClient, ProviderError, type SendOptions } from '../../../src/providers/index.js';
import { messageChars } from './approximate-tokens.js';
import { clientWith, requestSummary, transcriptText } from './summary-request.js';

/** pi's defaults and the window they were made for. */
const RESERVE_TOKENS = 16_384;
const KEEP_RECENT_TOKENS = 20_000;
const DEFAULT_WINDOW = 200_000;

/** The first index to keep: about `keep` tokens back from the newest, at a user or assistant message. */
export function piCutPoint(messages: readonly Message[], start: number, keep: number): number {
  let tokens = 0;
  for (let index = messages.length - 1; index >= start; index--) {
    tokens += Math.ceil(messageChars(messages[index] as Message) / 4);
    if (tokens < keep) continue;
    for (let cut = index; cut < messages.length; cut++) if (messages[cut]?.role !== 'tool') return cut;
    // No valid cut point after it: pi keeps everything (its first cut point).
    return start;
  }
  return start;
}

export function piCompactionClient(inner: ModelClient, { window }: { window: number }): ModelClient {
  const reserve = Math.round((RESERVE_TOKENS * window) / DEFAULT_WINDOW);
  const keep = Math.round((KEEP_RECENT_TOKENS * window) / DEFAULT_WINDOW);
  let summary: string | undefined;
  /** Index of the first message of the caller's history sent verbatim after the summary. */
  let firstKept = 1;
  let lastContext: number | undefined;

  const view = (request: ChatRequest): Message[] =>
    summary === undefined
      ? request.messages
      : [
          request.messages[0] as Message,
          {
            role: 'user',
            content: `The conversation before this point was compacted into this summary:\n\n${summary}`,
          },
          ...request.messages.slice(firstKept),
        ];

  const compact = async (request: ChatRequest, options?: SendOptions): Promise<boolean> => {
    const cut = piCutPoint(request.messages, firstKept, keep);
    if (cut <= firstKept) return false;
    const previous = summary === undefined ? '' : `\nThe summary so far, to update:\n${summary}\n`;
    summary = await requestSummary(
      inner,
      request,
      {
        system: 'You summarize coding sessions so that another model can continue the work.',
        prompt: `Summarize the goal, progress, decisions and next steps of this conversation.${previous}\n<conversation>\n${transcriptText(request.messages.slice(firstKept, cut))}\n</conversation>`,
        maxTokens: Math.floor(0.8 * reserve),
      },
      options,
    );
    firstKept = cut;
    return true;
  };

  const send = async (request: ChatRequest, options?: SendOptions) => {
    const reply = await inner.send({ ...request, messages: view(request) }, options);
    if (reply.usage) lastContext = reply.usage.promptTokens + reply.usage.completionTokens;
    return reply;
  };

  return clientWith(inner, async (request, options) => {
    if (lastContext !== undefined && lastContext > window - reserve && (await compact(request, options)))
      lastContext = undefined;
    try {
      return await send(request, options);
    } catch (error) {
      const overflow = ProviderError.isInstance(error) ? error.overflow.kind : 'none';
      if (overflow !== 'context' && overflow !== 'budget') throw error;
      if (!(await compact(request, options))) throw error;
      return send(request, options);
    }
  });
}

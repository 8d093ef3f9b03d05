/**
 * What the summarizing baselines share: a readable transcript of the messages to summarize, the
 * summary request sent to the same model without tools, and how a recorded request body is told
 * apart as a summary call (the matrix reports those apart from ordinary requests).
 */
import {
  type ChatRequest,
  contentText,
  type Message,
  SUMMARY_REQUEST_MARKER,
} from '../../../src/core/index.js';
import type { ModelClient, SendOptions } from '../../../src/providers/index.js';

/** Opens every baseline's summary prompt, so its requests can be counted apart. */
export const BASELINE_SUMMARY_MARKER = '[summary request]';

/** The messages as labelled text, one block a message (tool calls and results included). */
export function transcriptText(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      const text = contentText(message.content);
      if (message.role === 'tool') return `[tool result ${message.toolCallId}]: ${text}`;
      if (message.role !== 'assistant') return `[${message.role}]: ${text}`;
      const calls = (message.toolCalls ?? []).map(
        (call) => `[assistant called ${call.name}(${call.arguments})]`,
      );
      return [text ? `[assistant]: ${text}` : '', ...calls].filter(Boolean).join('\n');
    })
    .join('\n');
}

/** Asks the model for a summary of `text`; returns the reply's text. */
export async function requestSummary(
  client: ModelClient,
  base: ChatRequest,
  { system, prompt, maxTokens }: { system?: string; prompt: string; maxTokens?: number },
  options?: SendOptions,
): Promise<string> {
  const messages: Message[] = [
    ...(system ? [{ role: 'system' as const, content: system }] : []),
    { role: 'user', content: `${BASELINE_SUMMARY_MARKER} ${prompt}` },
  ];
  const request: ChatRequest = { ...base, messages, tools: [] };
  if (maxTokens === undefined) delete request.maxTokens;
  else request.maxTokens = maxTokens;
  const reply = await client.send(request, options);
  return contentText(reply.message.content).trim();
}

/** Whether a recorded request body is a summary call (Spillway's or a baseline's). */
export function isSummaryBody(body: unknown): boolean {
  const text = JSON.stringify(body ?? '');
  return text.includes(SUMMARY_REQUEST_MARKER) || text.includes(BASELINE_SUMMARY_MARKER);
}

/** A client that sends through `send` instead of the inner client's own. */
export function clientWith(
  inner: ModelClient,
  send: (request: ChatRequest, options?: SendOptions) => ReturnType<ModelClient['send']>,
): ModelClient {
  return { format: inner.format, baseUrl: inner.baseUrl, send };
}

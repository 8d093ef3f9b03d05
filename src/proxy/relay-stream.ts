/**
 * @module
 * Server-sent events passed through chunk by chunk. Until the first event that carries content, the
 * bytes are held back (with the status line): an overflow that arrives as an error event inside a
 * 200 stream before any content can still be recovered, because the client has seen nothing yet.
 * From the first content on, every chunk is written as it arrives, and an error event later in the
 * stream reaches the client unchanged (a retry would repeat content the client already has).
 */

import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { upstreamTimeoutOf } from './upstream-timeouts.js';

/** Bytes held back at most before the first content; past this the stream is committed anyway. */
export const MAX_HOLDBACK_BYTES = 64 * 1024;

/** How one relayed stream ended. */
export type RelayOutcome =
  /** Committed and passed through (possibly with a later error event, or cut off). */
  | {
      kind: 'relayed';
      promptTokens?: number;
      errorAfterContent: boolean;
      interrupted: boolean;
      /** Interrupted because no chunk came within the idle timeout. */
      timedOut?: boolean;
    }
  /** An error event came before any content: nothing was written; `text` is the stream so far. */
  | { kind: 'error-before-content'; text: string }
  /** The upstream stream broke off before any content: nothing was written. */
  | { kind: 'interrupted-before-content'; cause: Error }
  /** The client went away. */
  | { kind: 'aborted' };

type EventKind = 'content' | 'error' | 'preamble';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DELTA_FIELDS = [
  'content',
  'tool_calls',
  'reasoning_content',
  'reasoning',
  'refusal',
  'function_call',
  'audio',
];

/**
 * What an event means for the holdback: OpenAI chunks are content once a delta carries text, tool
 * calls, reasoning or a finish reason (the opening `{"role":"assistant","content":""}` is not);
 * Anthropic's `message_start` and `ping`, the Responses API's `response.created` and
 * `response.in_progress` are preamble; error events are OpenRouter's `{"error":…}` chunk,
 * Anthropic's `event: error`, and the Responses API's `response.failed`.
 */
export function classifyEvent(event: EventSourceMessage, data: unknown): EventKind {
  if (event.event === 'error') return 'error';
  if (!isRecord(data)) return event.data.trim() === '' ? 'preamble' : 'content';
  if (isRecord(data.error) || typeof data.error === 'string') return 'error';
  if (data.type === 'error' || data.type === 'response.failed') return 'error';
  if (
    data.type === 'message_start' ||
    data.type === 'ping' ||
    data.type === 'response.created' ||
    data.type === 'response.in_progress'
  )
    return 'preamble';
  if (Array.isArray(data.choices)) {
    for (const choice of data.choices) {
      if (!isRecord(choice)) continue;
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) return 'content';
      const delta = isRecord(choice.delta) ? choice.delta : {};
      for (const field of DELTA_FIELDS) {
        const value = delta[field];
        if (value === undefined || value === null || value === '') continue;
        if (Array.isArray(value) && value.length === 0) continue;
        return 'content';
      }
    }
    return 'preamble';
  }
  return 'content';
}

/**
 * Prompt tokens an event reports: OpenAI's final `usage` chunk, Anthropic's `message_start`, the
 * Responses API's `response.completed` (and `response.incomplete`), Gemini's `usageMetadata`.
 */
function promptTokensOf(data: unknown): number | undefined {
  if (!isRecord(data)) return undefined;
  if (isRecord(data.usageMetadata) && typeof data.usageMetadata.promptTokenCount === 'number')
    return data.usageMetadata.promptTokenCount > 0 ? data.usageMetadata.promptTokenCount : undefined;
  if (isRecord(data.usage) && typeof data.usage.prompt_tokens === 'number') return data.usage.prompt_tokens;
  if (isRecord(data.response) && isRecord(data.response.usage)) {
    const tokens = data.response.usage.input_tokens;
    return typeof tokens === 'number' && tokens > 0 ? tokens : undefined;
  }
  if (data.type === 'message_start' && isRecord(data.message) && isRecord(data.message.usage)) {
    const usage = data.message.usage;
    const count = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
    const total =
      count('input_tokens') + count('cache_creation_input_tokens') + count('cache_read_input_tokens');
    return total > 0 ? total : undefined;
  }
  return undefined;
}

function parseData(text: string): unknown {
  if (text === '[DONE]') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Relays an upstream SSE response to the client. `commit` writes the status line and headers; it is
 * called once, when the first content event arrives (or the holdback fills, or the stream ends).
 *
 * @example
 * const outcome = await relayStream({ upstream, response, signal, commit: () => response.writeHead(200, headers) });
 * if (outcome.kind === 'error-before-content') recover(classifyOverflow({ status: 200, body: outcome.text }));
 */
export async function relayStream({
  upstream,
  response,
  commit,
  signal,
}: {
  upstream: IncomingMessage;
  response: ServerResponse;
  commit: () => void;
  signal: AbortSignal;
}): Promise<RelayOutcome> {
  let committed = false;
  let contentSeen = false;
  let errorFirst = false;
  let errorAfterContent = false;
  let promptTokens: number | undefined;
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  const parser = createParser({
    onEvent(event) {
      // After content, only events that can carry usage or an error are worth parsing.
      if (contentSeen && !/"usage(?:Metadata)?"/.test(event.data) && !event.data.includes('error')) return;
      const data = parseData(event.data);
      promptTokens = promptTokensOf(data) ?? promptTokens;
      if (contentSeen) {
        if (classifyEvent(event, data) === 'error') errorAfterContent = true;
        return;
      }
      const kind = classifyEvent(event, data);
      if (kind === 'error' && !errorFirst) errorFirst = true;
      else if (kind === 'content' && !errorFirst) contentSeen = true;
    },
  });
  const decoder = new TextDecoder();
  const flush = async (chunk: Buffer): Promise<void> => {
    if (!response.write(chunk) && !response.destroyed)
      await Promise.race([once(response, 'drain'), once(response, 'close')]);
  };
  const commitNow = async (): Promise<void> => {
    committed = true;
    commit();
    const held = Buffer.concat(pending);
    pending.length = 0;
    if (held.length > 0) await flush(held);
  };
  try {
    for await (const chunk of upstream) {
      const buffer = chunk as Buffer;
      parser.feed(decoder.decode(buffer, { stream: true }));
      if (committed) {
        await flush(buffer);
        continue;
      }
      pending.push(buffer);
      pendingBytes += buffer.length;
      if (errorFirst) {
        upstream.destroy();
        return { kind: 'error-before-content', text: Buffer.concat(pending).toString('utf8') };
      }
      if (contentSeen || pendingBytes > MAX_HOLDBACK_BYTES) await commitNow();
    }
  } catch (error) {
    if (signal.aborted) return { kind: 'aborted' };
    if (!committed) return { kind: 'interrupted-before-content', cause: error as Error };
    // The client has part of a reply: cut its stream too, as the upstream did, rather than end it
    // cleanly and make a broken reply look complete.
    response.destroy();
    return {
      kind: 'relayed',
      ...(promptTokens === undefined ? {} : { promptTokens }),
      errorAfterContent,
      interrupted: true,
      ...(upstreamTimeoutOf(error) ? { timedOut: true } : {}),
    };
  }
  if (signal.aborted) return { kind: 'aborted' };
  parser.feed(decoder.decode());
  if (!committed) {
    if (errorFirst) return { kind: 'error-before-content', text: Buffer.concat(pending).toString('utf8') };
    await commitNow();
  }
  response.end();
  return {
    kind: 'relayed',
    ...(promptTokens === undefined ? {} : { promptTokens }),
    errorAfterContent,
    interrupted: false,
  };
}

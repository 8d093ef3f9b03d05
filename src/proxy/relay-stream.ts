/**
 * @module
 * Server-sent events passed through chunk by chunk. Until the first event that carries content, the
 * events are held back: an overflow that arrives as an error event inside a 200 stream before any
 * content can still be recovered, because the client has seen no event yet. Comments (`: PROCESSING`,
 * the keep-alives servers send during a long prefill) are no events: they are passed on at once,
 * after the status line and headers, so a client's read timeout sees the upstream alive exactly as
 * it would directly. From the first content on, every chunk is written as it arrives, and an error
 * event later in the stream reaches the client unchanged (a retry would repeat content the client
 * already has).
 */

import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { upstreamTimeoutOf } from './upstream-timeouts.js';

/**
 * Bytes of events held back at most before the first content; past this the stream is passed on
 * anyway. Comments are never held, so they do not count.
 */
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
  /**
   * An error event came before any content: no event was written (comments and the headers may
   * have been); `text` is the events so far.
   */
  | { kind: 'error-before-content'; text: string }
  /** The upstream stream broke off before any content: no event was written. */
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

/** A usage figure in an event's data: `"usage"` (or Gemini's `"usageMetadata"`) holding an object. */
const USAGE_OBJECT = /"usage(?:Metadata)?"\s*:\s*\{/;

/**
 * {@link USAGE_OBJECT} in a stream's text, where an event's data may go on in the next `data:` line:
 * a usage key at the end of a line may hold an object too (`"usage": null` holds none).
 */
const USAGE_IN_TEXT = /"usage(?:Metadata)?"\s*:\s*(?:\{|\r?$)/m;

function parseData(text: string): unknown {
  if (text === '[DONE]') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A stream's bytes as text, a character split between chunks kept for the next, and a byte-order
 * mark at its start dropped (the event-stream format ignores one; the parser is handed text). Node's
 * `StringDecoder`: a `TextDecoder` costs several microseconds to make, once per stream.
 */
export class EventText {
  readonly #decoder = new StringDecoder('utf8');
  #started = false;

  write(bytes: Buffer): string {
    return this.#after(this.#decoder.write(bytes));
  }

  end(): string {
    return this.#after(this.#decoder.end());
  }

  #after(text: string): string {
    if (this.#started || text === '') return text;
    this.#started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

/**
 * Reads bytes line by line (each with its `\n`), keeping an unfinished last line for the next chunk.
 * Lines are cut only as they are read: once content passes, what is left of a chunk goes out as one
 * piece of it.
 */
class LineSplitter {
  #bytes: Buffer = Buffer.alloc(0);
  #at = 0;

  /** Starts on a chunk, after what is left unread of the ones before (an unfinished line). */
  push(chunk: Buffer): void {
    const left = this.#bytes.subarray(this.#at);
    this.#bytes = left.length === 0 ? chunk : Buffer.concat([left, chunk]);
    this.#at = 0;
  }

  /** The next complete line; none when only an unfinished one is left (kept for the next chunk). */
  next(): Buffer | undefined {
    const end = this.#bytes.indexOf(0x0a, this.#at);
    if (end === -1) return undefined;
    const line = this.#bytes.subarray(this.#at, end + 1);
    this.#at = end + 1;
    return line;
  }

  /** Everything not read yet, complete lines and the unfinished one, taken out. */
  rest(): Buffer {
    const rest = this.#bytes.subarray(this.#at);
    this.#bytes = Buffer.alloc(0);
    this.#at = 0;
    return rest;
  }

  /** Bytes not read yet. */
  get pendingBytes(): number {
    return this.#bytes.length - this.#at;
  }
}

/**
 * `parts` as one buffer: a view of the bytes they hold when each follows the one before in the same
 * memory (lines cut from one chunk, the usual case), else a copy.
 */
function joined(parts: readonly Buffer[]): Buffer {
  const [first] = parts;
  if (first === undefined) return Buffer.alloc(0);
  let end = first.byteOffset + first.length;
  for (const part of parts.slice(1)) {
    if (part.buffer !== first.buffer || part.byteOffset !== end) return Buffer.concat(parts);
    end += part.length;
  }
  return Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** A comment line (`: …`), or an empty line that ends no event: what can go out before content. */
function isPassable(line: Buffer, inEvent: boolean): boolean {
  if (line[0] === 0x3a) return true;
  const empty = line.length === 1 || (line.length === 2 && line[0] === 0x0d);
  return empty && !inEvent;
}

/** Responses whose writes are held until the event loop's turn ends (see {@link holdForTurn}). */
const holding = new WeakSet<ServerResponse>();

/**
 * Holds what is written to `response` until the event loop has handled the input that came with it:
 * a stream's last chunk and its end usually arrive together, and the end's closing chunk then goes
 * out with that chunk in one write rather than a write of its own (`end` lets everything out at
 * once). Held for a turn, never until more input comes: a chunk reaches the client as soon as the
 * events already read have been handled.
 */
function holdForTurn(response: ServerResponse): void {
  if (holding.has(response)) return;
  holding.add(response);
  response.cork();
  setImmediate(() => {
    holding.delete(response);
    if (!response.writableEnded && !response.destroyed) response.uncork();
  });
}

/**
 * Relays an upstream SSE response to the client. `commit` writes the status line and headers; it is
 * called once, when the first comment or content event arrives (or the holdback fills, or the stream
 * ends); a response whose headers an earlier attempt already sent is continued as it is.
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
  /** Content seen: from here on every chunk goes out as it comes. */
  let passing = false;
  let contentSeen = false;
  let errorFirst = false;
  let errorAfterContent = false;
  let promptTokens: number | undefined;
  const held: Buffer[] = [];
  let heldBytes = 0;
  /** A held event has begun and its closing empty line has not come yet. */
  let inEvent = false;
  /** Where the held event being read starts in `held`. */
  let eventStart = 0;
  /** The event just read was a keep-alive (Anthropic's `ping`): it goes out with the comments. */
  let keepAlive = false;
  const parser = createParser({
    onEvent(event) {
      // After content, only events that can carry usage or an error are worth parsing: OpenAI's
      // chunks carry `"usage": null` until the last when usage is asked for ("All other chunks will
      // also include a usage field, but with a null value", the API reference's `stream_options`).
      // An `"error"` in the data is a key or a value, never text inside a string (whose quotes are
      // escaped), so a reply that talks about errors is not parsed for it.
      if (contentSeen && !USAGE_OBJECT.test(event.data) && !event.data.includes('"error"')) return;
      const data = parseData(event.data);
      promptTokens = promptTokensOf(data) ?? promptTokens;
      if (contentSeen) {
        if (classifyEvent(event, data) === 'error') errorAfterContent = true;
        return;
      }
      keepAlive = event.event === 'ping' || (isRecord(data) && data.type === 'ping');
      const kind = classifyEvent(event, data);
      if (kind === 'error' && !errorFirst) errorFirst = true;
      else if (kind === 'content' && !errorFirst) contentSeen = true;
    },
  });
  const decoder = new EventText();
  const lines = new LineSplitter();
  /** The parser has read whole events so far (none begun). */
  let betweenEvents = false;
  /**
   * Feeds text that is passed on. After content, whole events that cannot carry usage or an error
   * (see `onEvent`) are not parsed: the parser starts at the event holding the first usage object
   * or `"error"`, or after the last whole event.
   */
  const feedPassing = (text: string): void => {
    let rest = text;
    if (contentSeen && betweenEvents) {
      const usage = USAGE_IN_TEXT.exec(rest)?.index ?? -1;
      const error = rest.indexOf('"error"');
      const first = usage === -1 ? error : error === -1 ? usage : Math.min(usage, error);
      const skipTo = first === -1 ? rest.lastIndexOf('\n\n') : rest.lastIndexOf('\n\n', first);
      if (skipTo !== -1) rest = rest.slice(skipTo + 2);
    }
    if (rest === '') return;
    parser.feed(rest);
    betweenEvents = rest.endsWith('\n\n');
  };
  const flush = async (chunk: Buffer): Promise<void> => {
    if (chunk.length === 0) return;
    if (!response.headersSent) commit();
    holdForTurn(response);
    if (!response.write(chunk) && !response.destroyed)
      await Promise.race([once(response, 'drain'), once(response, 'close')]);
  };
  /** From content on, every byte goes out; `rest` (not parsed yet) is what came after the content. */
  const startPassing = async (rest: Buffer): Promise<void> => {
    passing = true;
    // Content was seen as the parser read an event's closing line: it stands between events.
    betweenEvents = contentSeen;
    feedPassing(decoder.write(rest));
    const out = joined([...held, rest]);
    held.length = 0;
    if (!response.headersSent) commit();
    await flush(out);
  };
  /** Routes one chunk before content: comments out, events held; false once an error came first. */
  const route = async (chunk: Buffer): Promise<boolean> => {
    const out: Buffer[] = [];
    lines.push(chunk);
    for (let line = lines.next(); line !== undefined; line = lines.next()) {
      keepAlive = false;
      parser.feed(decoder.write(line));
      if (isPassable(line, inEvent)) {
        out.push(line);
        continue;
      }
      if (!inEvent) eventStart = held.length;
      held.push(line);
      heldBytes += line.length;
      inEvent = line.length > 2 || (line.length === 2 && line[0] !== 0x0d);
      if (errorFirst) return false;
      if (keepAlive) {
        const event = held.splice(eventStart);
        for (const part of event) heldBytes -= part.length;
        out.push(...event);
      }
      if (contentSeen) {
        if (out.length > 0) await flush(joined(out));
        await startPassing(lines.rest());
        return true;
      }
    }
    if (out.length > 0) await flush(joined(out));
    if (heldBytes + lines.pendingBytes > MAX_HOLDBACK_BYTES) await startPassing(lines.rest());
    return true;
  };
  try {
    for await (const chunk of upstream) {
      const buffer = chunk as Buffer;
      if (passing) {
        feedPassing(decoder.write(buffer));
        await flush(buffer);
        continue;
      }
      if (!(await route(buffer))) {
        upstream.destroy();
        return { kind: 'error-before-content', text: Buffer.concat(held).toString('utf8') };
      }
    }
  } catch (error) {
    if (signal.aborted) return { kind: 'aborted' };
    if (!passing) return { kind: 'interrupted-before-content', cause: error as Error };
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
  if (!passing) {
    const rest = lines.rest();
    parser.feed(decoder.write(rest));
    held.push(rest);
    if (errorFirst) return { kind: 'error-before-content', text: Buffer.concat(held).toString('utf8') };
    await startPassing(Buffer.alloc(0));
  }
  parser.feed(decoder.end());
  response.end();
  return {
    kind: 'relayed',
    ...(promptTokens === undefined ? {} : { promptTokens }),
    errorAfterContent,
    interrupted: false,
  };
}

import type { ServerResponse } from 'node:http';
import type { FaultKind } from './faults.js';
import type { GeneratedReply } from './generate-reply.js';
import {
  deltaPieces,
  sendCutJson,
  sendMalformedJson,
  sendReply,
  startEventStream,
  writeFrames,
} from './http.js';
import type { Profile } from './profiles/profile.js';

/** Everything an Anthropic Messages reply is written from. */
export interface AnthropicReplyInput {
  response: ServerResponse;
  profile: Profile;
  id: string;
  requestId: string;
  reply: GeneratedReply;
  promptTokens: number;
  stream: boolean;
  /** A thinking block's signature (opaque to clients, replayed with the block). */
  signature: string;
  fault?: FaultKind;
}

const STOP_REASONS = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' } as const;

function toolInput(text: string, truncated: boolean): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return truncated ? {} : text;
  }
}

function blocks(input: AnthropicReplyInput): Record<string, unknown>[] {
  const { reply } = input;
  const out: Record<string, unknown>[] = [];
  if (reply.reasoning !== '')
    out.push({ type: 'thinking', thinking: reply.reasoning, signature: input.signature });
  if (reply.text !== '' || reply.toolCalls.length === 0) out.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls)
    out.push({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: toolInput(call.arguments, reply.finish === 'length'),
    });
  return out;
}

/**
 * Writes a reply in the Anthropic Messages format: one JSON message, or the event stream
 * (`message_start`, `content_block_start` / `content_block_delta` / `content_block_stop` per block,
 * `ping`, `message_delta` with `stop_reason` and output usage, `message_stop`), faults applied.
 */
export function writeAnthropicReply(input: AnthropicReplyInput): void {
  const { response, reply, profile } = input;
  const usage = profile.usage(input.promptTokens, reply.completionTokens, reply.reasoningTokens);
  const stopReason = STOP_REASONS[reply.finish];
  const content = blocks(input);
  const headers = { 'request-id': input.requestId };
  if (!input.stream) {
    const body = {
      id: input.id,
      type: 'message',
      role: 'assistant',
      model: profile.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    };
    if (input.fault === 'stream-cut') sendCutJson(response, body);
    else if (input.fault === 'malformed-sse') sendMalformedJson(response, body);
    else sendReply(response, { status: 200, body, headers });
    return;
  }
  const event = (type: string, data: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const frames: string[] = [
    event('message_start', {
      message: {
        id: input.id,
        type: 'message',
        role: 'assistant',
        model: profile.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ];
  content.forEach((block, index) => {
    if (block.type === 'thinking') {
      frames.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } }));
      for (const piece of deltaPieces(String(block.thinking)))
        frames.push(
          event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }),
        );
      frames.push(
        event('content_block_delta', {
          index,
          delta: { type: 'signature_delta', signature: input.signature },
        }),
      );
    } else if (block.type === 'text') {
      frames.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const piece of deltaPieces(String(block.text)))
        frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    } else {
      frames.push(
        event('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      const call = reply.toolCalls.find((candidate) => candidate.id === block.id);
      for (const piece of deltaPieces(call?.arguments ?? '{}', 24))
        frames.push(
          event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
        );
    }
    frames.push(event('content_block_stop', { index }));
  });
  // Anthropic sends a ping right after the first content_block_start.
  frames.splice(Math.min(2, frames.length), 0, event('ping', {}));
  frames.push(
    event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: reply.completionTokens },
    }),
  );
  frames.push(event('message_stop', {}));
  if (input.fault === 'malformed-sse')
    frames.splice(
      1,
      0,
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\n\n',
    );
  startEventStream(response, headers);
  writeFrames(response, frames, {
    cutAfter: input.fault === 'stream-cut' ? Math.max(1, Math.floor(frames.length / 2)) : undefined,
  });
}

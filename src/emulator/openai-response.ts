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

/** Everything an OpenAI-format reply is written from. */
export interface OpenAIReplyInput {
  response: ServerResponse;
  profile: Profile;
  id: string;
  created: number;
  reply: GeneratedReply;
  promptTokens: number;
  stream: boolean;
  includeUsage: boolean;
  /** Reasoning text is returned (in the profile's field) when true, only counted when false. */
  showReasoning: boolean;
  fault?: FaultKind;
}

function message(input: OpenAIReplyInput): Record<string, unknown> {
  const { reply, profile } = input;
  const out: Record<string, unknown> = {
    role: 'assistant',
    content: reply.text === '' && reply.toolCalls.length > 0 ? null : reply.text,
  };
  if (input.showReasoning && profile.reasoningField && reply.reasoning !== '')
    out[profile.reasoningField] = reply.reasoning;
  if (reply.toolCalls.length > 0)
    out.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  return out;
}

function envelope(input: OpenAIReplyInput, object: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: input.id,
    object,
    created: input.created,
    model: input.profile.model,
  };
  if (input.profile.systemFingerprint !== undefined) out.system_fingerprint = input.profile.systemFingerprint;
  return out;
}

/**
 * Writes a chat completion in the OpenAI format: one JSON body, or server-sent events (`data: {…}`
 * chunks, a final chunk with `finish_reason`, a usage chunk with `choices: []` when
 * `stream_options.include_usage` is set, then `data: [DONE]`), with the stream faults applied.
 */
export function writeOpenAIReply(input: OpenAIReplyInput): void {
  const { response, reply, profile } = input;
  const usage = profile.usage(input.promptTokens, reply.completionTokens, reply.reasoningTokens);
  if (!input.stream) {
    const body = {
      ...envelope(input, 'chat.completion'),
      choices: [{ index: 0, message: message(input), logprobs: null, finish_reason: reply.finish }],
      usage,
    };
    if (input.fault === 'stream-cut') sendCutJson(response, body);
    else if (input.fault === 'malformed-sse') sendMalformedJson(response, body);
    else sendReply(response, { status: 200, body });
    return;
  }
  const head = envelope(input, 'chat.completion.chunk');
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string => {
    const body: Record<string, unknown> = {
      ...head,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (input.includeUsage) body.usage = null;
    return `data: ${JSON.stringify(body)}\n\n`;
  };
  const frames: string[] = [chunk({ role: 'assistant', content: '' })];
  if (input.showReasoning && profile.reasoningField)
    for (const piece of deltaPieces(reply.reasoning)) frames.push(chunk({ [profile.reasoningField]: piece }));
  for (const piece of deltaPieces(reply.text)) frames.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    frames.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of deltaPieces(call.arguments, 24))
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  frames.push(chunk({}, reply.finish));
  if (input.includeUsage) frames.push(`data: ${JSON.stringify({ ...head, choices: [], usage })}\n\n`);
  frames.push('data: [DONE]\n\n');
  if (input.fault === 'malformed-sse')
    frames.splice(
      1,
      0,
      `data: {"id":"${input.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\n\n`,
    );
  startEventStream(response);
  writeFrames(response, frames, {
    cutAfter: input.fault === 'stream-cut' ? Math.max(1, Math.floor(frames.length / 2)) : undefined,
  });
}

/**
 * @module
 * A generated reply written as an OpenAI Responses API response: one `response` object, or the event
 * stream (`response.created`, `response.in_progress`, per output item `response.output_item.added`,
 * its text or argument deltas and `response.output_item.done`, then `response.completed`, or
 * `response.incomplete` when the reply ran into `max_output_tokens`), each event with its
 * `sequence_number`, as the Responses API streaming reference describes them.
 */
import type { GeneratedAnswer } from './handle-chat.js';
import {
  deltaPieces,
  sendCutJson,
  sendMalformedJson,
  sendReply,
  startEventStream,
  writeFrames,
} from './http.js';
import type { createRandom } from './random.js';

type Json = Record<string, unknown>;

/** What a Responses reply is written from, beyond the generated answer. */
export interface ResponsesReplyInput {
  answer: GeneratedAnswer;
  id: string;
  createdAt: number;
  /** Draws item ids. */
  ids: ReturnType<typeof createRandom>;
  /** Request fields a response echoes (`previous_response_id`, `store`, `instructions`…). */
  echo: Json;
}

/** The output items of a reply: an assistant message with its text, then one `function_call` per call. */
export function responseOutputItems(input: Pick<ResponsesReplyInput, 'answer' | 'ids'>): Json[] {
  const { reply } = input.answer;
  const items: Json[] = [];
  if (reply.text !== '' || reply.toolCalls.length === 0)
    items.push({
      id: `msg_${input.ids.chars(24)}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  for (const call of reply.toolCalls)
    items.push({
      id: `fc_${input.ids.chars(24)}`,
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  return items;
}

function responseObject(input: ResponsesReplyInput, output: Json[]): Json {
  const { reply, promptTokens, profile } = input.answer;
  const incomplete = reply.finish === 'length';
  return {
    id: input.id,
    object: 'response',
    created_at: input.createdAt,
    status: incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    model: profile.model,
    output,
    parallel_tool_calls: true,
    ...input.echo,
    usage: {
      input_tokens: promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: reply.completionTokens,
      output_tokens_details: { reasoning_tokens: reply.reasoningTokens },
      total_tokens: promptTokens + reply.completionTokens,
    },
  };
}

/** The events of one output item, from `output_item.added` to `output_item.done`. */
function itemEvents(item: Json, index: number, event: (type: string, data: Json) => string): string[] {
  const frames: string[] = [];
  const base = { item_id: item.id, output_index: index };
  if (item.type === 'message') {
    const text = String((item.content as { text: string }[])[0]?.text ?? '');
    const empty = { type: 'output_text', text: '', annotations: [] };
    frames.push(
      event('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', content: [] },
      }),
    );
    frames.push(event('response.content_part.added', { ...base, content_index: 0, part: empty }));
    for (const delta of deltaPieces(text))
      frames.push(event('response.output_text.delta', { ...base, content_index: 0, delta }));
    frames.push(event('response.output_text.done', { ...base, content_index: 0, text }));
    frames.push(event('response.content_part.done', { ...base, content_index: 0, part: { ...empty, text } }));
  } else {
    const args = String(item.arguments ?? '');
    frames.push(
      event('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress', arguments: '' },
      }),
    );
    for (const delta of deltaPieces(args, 24))
      frames.push(event('response.function_call_arguments.delta', { ...base, delta }));
    frames.push(event('response.function_call_arguments.done', { ...base, arguments: args }));
  }
  frames.push(event('response.output_item.done', { output_index: index, item }));
  return frames;
}

/**
 * Writes the reply as a Responses API response, JSON or events, with the stream faults applied;
 * returns its output items (for `previous_response_id` conversations).
 */
export function writeResponsesReply(input: ResponsesReplyInput): Json[] {
  const { response, stream, fault } = input.answer;
  const output = responseOutputItems(input);
  const complete = responseObject(input, output);
  if (!stream) {
    if (fault === 'stream-cut') sendCutJson(response, complete);
    else if (fault === 'malformed-sse') sendMalformedJson(response, complete);
    else sendReply(response, { status: 200, body: complete });
    return output;
  }
  let sequence = 0;
  const event = (type: string, data: Json): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  const started = { ...complete, status: 'in_progress', incomplete_details: null, output: [], usage: null };
  const frames = [
    event('response.created', { response: started }),
    event('response.in_progress', { response: started }),
  ];
  for (const [index, item] of output.entries()) frames.push(...itemEvents(item, index, event));
  frames.push(
    event(complete.status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
      response: complete,
    }),
  );
  if (fault === 'malformed-sse')
    frames.splice(
      2,
      0,
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"\n\n',
    );
  startEventStream(response);
  writeFrames(response, frames, {
    cutAfter: fault === 'stream-cut' ? Math.max(1, Math.floor(frames.length / 2)) : undefined,
  });
  return output;
}

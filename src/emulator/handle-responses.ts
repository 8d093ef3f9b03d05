/**
 * @module
 * `POST /v1/responses`, the OpenAI Responses API, on the OpenAI-format profiles (OpenAI, vLLM and
 * LiteLLM serve it). The request is read with Spillway's converters into the chat request the
 * profile already counts, admits and answers; the answer is written as a Responses response. Stored
 * responses (`store` is not `false`) can be continued with `previous_response_id`: the server holds
 * the earlier items and counts them with the new ones, and `truncation: "auto"` drops the oldest
 * items when the whole does not fit, as the API reference describes; otherwise an overflow is
 * rejected.
 */
import type { ServerResponse } from 'node:http';
import { fromResponses, SpillwayError, toOpenAIChat } from '../core/index.js';
import { countTemplateTokens, templateInputOf } from './count-prompt-tokens.js';
import { type ChatContext, handleChat } from './handle-chat.js';
import { sendReply } from './http.js';
import { MODEL_CREATED, openAIErrorBody } from './profiles/profile.js';
import { createRandom } from './random.js';
import { writeResponsesReply } from './responses-reply.js';
import type { EmulatorRequestRecord } from './types.js';

type Json = Record<string, unknown>;

/** Responses kept for `previous_response_id`, oldest dropped first past this many. */
export const STORED_RESPONSES = 1_000;

/**
 * The OpenAI Responses API's rejection of input over the window (captured from the API and quoted by
 * Codex CLI, openai/codex#3845): 400 `context_length_exceeded` on `param: "input"`.
 */
export const RESPONSES_CONTEXT_MESSAGE =
  'Your input exceeds the context window of this model. Please adjust your input and try again.';

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The items of an `input`: text becomes one user message. */
function itemsOf(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/** Drops the oldest items until the request fits, never leaving an output whose call was dropped. */
function truncateOldest(context: ChatContext, body: Json, items: unknown[]): unknown[] {
  const room = context.profile.contextLength - (Number(body.max_output_tokens) || 0);
  const fits = (kept: unknown[]) =>
    countTemplateTokens(
      templateInputOf(chatBody({ ...body, input: kept }), { format: 'openai' }),
      context.tokenizer,
    ) <= room;
  let kept = items;
  while (kept.length > 1 && !fits(kept)) {
    kept = kept.slice(1);
    while (kept.length > 1 && isRecord(kept[0]) && String(kept[0].type ?? '').endsWith('_call_output'))
      kept = kept.slice(1);
  }
  return kept;
}

function chatBody(body: Json): Json {
  const chat = toOpenAIChat(fromResponses(body)) as Json;
  if (body.stream === true) chat.stream = true;
  return chat;
}

function badRequest(
  response: ServerResponse,
  record: EmulatorRequestRecord,
  message: string,
  param: string | null,
  code: string | null,
): void {
  record.status = 400;
  sendReply(response, { status: 400, body: openAIErrorBody(message, 'invalid_request_error', param, code) });
}

/**
 * Answers one Responses API request through the profile's chat handling.
 *
 * @example
 * await handleResponses(context, { response, parsed, record, requestNumber, stored });
 */
export async function handleResponses(
  context: ChatContext,
  {
    response,
    parsed,
    record,
    requestNumber,
    stored,
  }: {
    response: ServerResponse;
    parsed: { body?: unknown; error?: string };
    record: EmulatorRequestRecord;
    requestNumber: number;
    stored: Map<string, unknown[]>;
  },
): Promise<void> {
  if (!isRecord(parsed.body)) {
    await handleChat(context, { response, parsed, record, requestNumber });
    return;
  }
  const body = parsed.body;
  const previousId = body.previous_response_id;
  let items = itemsOf(body.input);
  if (typeof previousId === 'string') {
    const earlier = stored.get(previousId);
    if (earlier === undefined) {
      badRequest(
        response,
        record,
        `Previous response with id '${previousId}' not found.`,
        'previous_response_id',
        'previous_response_not_found',
      );
      return;
    }
    items = [...earlier, ...items];
  }
  let chat: Json;
  try {
    if (body.truncation === 'auto') items = truncateOldest(context, body, items);
    chat = chatBody({ ...body, input: items });
  } catch (error) {
    if (!SpillwayError.isInstance(error)) throw error;
    badRequest(response, record, error.message, 'input', 'invalid_value');
    return;
  }
  const ids = createRandom(context.seed, 'responses', requestNumber, items.length);
  const id = `resp_${ids.chars(32)}`;
  const echo: Json = {
    previous_response_id: typeof previousId === 'string' ? previousId : null,
    store: body.store !== false,
  };
  if (typeof body.instructions === 'string') echo.instructions = body.instructions;
  await handleChat(context, {
    response,
    parsed: { body: chat },
    record,
    requestNumber,
    wire: {
      write(answer) {
        const output = writeResponsesReply({
          answer,
          id,
          createdAt: MODEL_CREATED + requestNumber,
          ids,
          echo,
        });
        if (body.store === false) return;
        if (stored.size >= STORED_RESPONSES) stored.delete(stored.keys().next().value as string);
        stored.set(id, [...items, ...output]);
      },
      overflowReply(kind, reply) {
        if (context.profile.name !== 'openai' || kind === 'output_cap') return reply;
        return {
          status: 400,
          body: openAIErrorBody(
            RESPONSES_CONTEXT_MESSAGE,
            'invalid_request_error',
            'input',
            'context_length_exceeded',
          ),
        };
      },
    },
  });
}

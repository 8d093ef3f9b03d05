/**
 * @module
 * The Gemini API on the `gemini` profile: `POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent` read with Spillway's converter into the chat request the profile counts,
 * admits and answers (written back in Gemini's format), and `:countTokens` answered with the same
 * count. Function responses that do not answer their turn's calls one for one are rejected, as the
 * Gemini API does.
 */
import type { ServerResponse } from 'node:http';
import { fromGemini, SpillwayError, toOpenAIChat } from '../core/index.js';
import { countTemplateTokens, templateInputOf } from './count-prompt-tokens.js';
import { writeGeminiReply } from './gemini-reply.js';
import { type ChatContext, handleChat } from './handle-chat.js';
import { sendReply } from './http.js';
import { GEMINI_PAIRING_MESSAGE, googleError } from './profiles/gemini.js';
import { createRandom } from './random.js';
import type { EmulatorRequestRecord } from './types.js';

type Json = Record<string, unknown>;

/** A Gemini API call: its model and method, from `/v1beta/models/{model}:{method}`. */
export interface GeminiCall {
  model: string;
  method: 'generateContent' | 'streamGenerateContent' | 'countTokens';
}

const GEMINI_PATH = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** The Gemini call a POST path makes, if it is one. */
export function geminiCallOf(method: string, path: string): GeminiCall | undefined {
  if (method !== 'POST') return undefined;
  const match = GEMINI_PATH.exec(path);
  if (!match) return undefined;
  return { model: decodeURIComponent(match[1] as string), method: match[2] as GeminiCall['method'] };
}

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function countOf(parts: unknown, key: string): number {
  return Array.isArray(parts) ? parts.filter((part) => isRecord(part) && part[key] !== undefined).length : 0;
}

/** Whether every turn after one with function calls answers them one for one, and no answer is unasked. */
export function pairsFunctionCalls(contents: unknown[]): boolean {
  let calls = 0;
  for (const content of contents) {
    const parts = isRecord(content) ? content.parts : undefined;
    const answers = countOf(parts, 'functionResponse');
    if (answers !== calls && (calls > 0 || answers > 0)) return false;
    calls = isRecord(content) && content.role === 'model' ? countOf(parts, 'functionCall') : 0;
  }
  return true;
}

function send(
  response: ServerResponse,
  record: EmulatorRequestRecord,
  reply: { status: number; body: unknown },
): void {
  record.status = reply.status;
  sendReply(response, reply);
}

/** The chat body a Gemini body stands for; throws `invalid_transcript` for a malformed one. */
function chatBodyOf(body: Json, model: string): Json {
  return toOpenAIChat(fromGemini(body, { model })) as Json;
}

/**
 * Answers one Gemini API call.
 *
 * @example
 * await handleGemini(context, { response, parsed, record, requestNumber, call, sse: true });
 */
export async function handleGemini(
  context: ChatContext,
  {
    response,
    parsed,
    record,
    requestNumber,
    call,
    sse,
  }: {
    response: ServerResponse;
    parsed: { body?: unknown; error?: string };
    record: EmulatorRequestRecord;
    requestNumber: number;
    call: GeminiCall;
    /** `?alt=sse` on a stream. */
    sse: boolean;
  },
): Promise<void> {
  const { profile } = context;
  if (parsed.error !== undefined || !isRecord(parsed.body)) {
    record.badInput = parsed.error === undefined ? 'not_object' : 'malformed_json';
    send(response, record, profile.badInput(record.badInput as 'malformed_json', { error: parsed.error }));
    return;
  }
  const request =
    call.method === 'countTokens' && isRecord(parsed.body.generateContentRequest)
      ? parsed.body.generateContentRequest
      : parsed.body;
  const contents = Array.isArray(request.contents) ? request.contents : undefined;
  if (contents === undefined || contents.length === 0) {
    record.badInput = 'missing_messages';
    send(response, record, profile.badInput('missing_messages', {}));
    return;
  }
  if (!pairsFunctionCalls(contents)) {
    record.badInput = 'invalid_messages';
    send(response, record, googleError(400, GEMINI_PAIRING_MESSAGE));
    return;
  }
  let chat: Json;
  try {
    chat = chatBodyOf({ ...request, contents }, call.model);
  } catch (error) {
    if (!SpillwayError.isInstance(error)) throw error;
    record.badInput = 'invalid_messages';
    send(response, record, googleError(400, `Invalid value at 'contents': ${error.message}`));
    return;
  }
  if (call.method === 'countTokens') {
    const tokens = countTemplateTokens(templateInputOf(chat, { format: 'openai' }), context.tokenizer);
    record.promptTokens = tokens;
    send(response, record, {
      status: 200,
      body: { totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] },
    });
    return;
  }
  if (call.method === 'streamGenerateContent') chat.stream = true;
  const responseId = createRandom(context.seed, 'gemini-response', requestNumber).chars(22);
  await handleChat(context, {
    response,
    parsed: { body: chat },
    record,
    requestNumber,
    wire: { write: (answer) => writeGeminiReply({ answer, responseId, sse }) },
  });
}

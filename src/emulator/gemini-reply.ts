/**
 * @module
 * A generated reply written as the Gemini API answers `generateContent`: one
 * `GenerateContentResponse` (`candidates[0].content.parts`, `finishReason`, `usageMetadata` with
 * `promptTokenCount`, `candidatesTokenCount`, `totalTokenCount`), or for `streamGenerateContent` the
 * same split into chunks: server-sent events with `alt=sse` (`data: {…}` and a blank line, each
 * chunk with the usage so far, the last with the finish reason), a JSON array of them without.
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

type Json = Record<string, unknown>;

function parsedArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function usageMetadata(answer: GeneratedAnswer, final: boolean): Json {
  const { promptTokens, reply } = answer;
  const details = [{ modality: 'TEXT', tokenCount: promptTokens }];
  if (!final)
    return { promptTokenCount: promptTokens, totalTokenCount: promptTokens, promptTokensDetails: details };
  const candidates = reply.completionTokens - reply.reasoningTokens;
  return {
    promptTokenCount: promptTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: promptTokens + reply.completionTokens,
    promptTokensDetails: details,
    ...(reply.reasoningTokens > 0 ? { thoughtsTokenCount: reply.reasoningTokens } : {}),
  };
}

/** The parts of the reply: its thought (when shown), its text, then one `functionCall` per call. */
function replyParts(answer: GeneratedAnswer): Json[] {
  const { reply } = answer;
  const parts: Json[] = [];
  if (reply.reasoning !== '') parts.push({ text: reply.reasoning, thought: true });
  if (reply.text !== '' || reply.toolCalls.length === 0) parts.push({ text: reply.text });
  for (const call of reply.toolCalls)
    parts.push({ functionCall: { id: call.id, name: call.name, args: parsedArgs(call.arguments) } });
  return parts;
}

function chunk(parts: Json[], extra: Json, meta: { modelVersion: string; responseId: string }): Json {
  return {
    candidates: [{ content: { parts, role: 'model' }, ...extra, index: 0 }],
    ...meta,
  };
}

/**
 * Writes the reply in the Gemini API's format; `sse` for `?alt=sse` streams.
 *
 * @example
 * writeGeminiReply({ answer, responseId: 'abc', sse: true });
 */
export function writeGeminiReply({
  answer,
  responseId,
  sse,
}: {
  answer: GeneratedAnswer;
  responseId: string;
  sse: boolean;
}): void {
  const { response, stream, fault, reply, profile } = answer;
  const meta = { modelVersion: profile.model, responseId };
  const finishReason = reply.finish === 'length' ? 'MAX_TOKENS' : 'STOP';
  const parts = replyParts(answer);
  const complete = {
    ...chunk(parts, { finishReason }, meta),
    usageMetadata: usageMetadata(answer, true),
  };
  if (!stream) {
    if (fault === 'stream-cut') sendCutJson(response, complete);
    else if (fault === 'malformed-sse') sendMalformedJson(response, complete);
    else sendReply(response, { status: 200, body: complete });
    return;
  }
  const chunks: Json[] = [];
  const opening = usageMetadata(answer, false);
  for (const part of parts) {
    if (typeof part.text === 'string' && part.text !== '')
      for (const piece of deltaPieces(part.text))
        chunks.push({ ...chunk([{ ...part, text: piece }], {}, meta), usageMetadata: opening });
    else if (part.functionCall !== undefined)
      chunks.push({ ...chunk([part], {}, meta), usageMetadata: opening });
  }
  chunks.push({
    ...chunk([{ text: '' }], { finishReason }, meta),
    usageMetadata: usageMetadata(answer, true),
  });
  if (!sse) {
    sendReply(response, { status: 200, body: chunks });
    return;
  }
  const frames = chunks.map((value) => `data: ${JSON.stringify(value)}\r\n\r\n`);
  if (fault === 'malformed-sse') frames.splice(1, 0, 'data: {"candidates": [\r\n\r\n');
  startEventStream(response);
  writeFrames(response, frames, {
    cutAfter: fault === 'stream-cut' ? Math.max(1, Math.floor(frames.length / 2)) : undefined,
  });
}

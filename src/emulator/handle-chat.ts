import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { writeAnthropicReply } from './anthropic-response.js';
import { countTemplateTokens, templateInputOf } from './count-prompt-tokens.js';
import { type FaultRule, faultFor } from './faults.js';
import { fillerProse } from './filler-text.js';
import { breakArguments, type GeneratedReply, generateReply, measureReply } from './generate-reply.js';
import { sendReply } from './http.js';
import { writeOpenAIReply } from './openai-response.js';
import { anthropicRequestId } from './profiles/anthropic.js';
import {
  type BadInputKind,
  type HttpReply,
  MODEL_CREATED,
  type OverflowKind,
  type Profile,
} from './profiles/profile.js';
import { createRandom } from './random.js';
import { replyIndex, resolveReply, type Script } from './script.js';
import { genericAgentReply, offeredTools } from './script-generic-agent.js';
import { answersAsGenericAgent, selectScript } from './script-select.js';
import type { Tokenizer } from './tokenizer.js';
import type { EmulatorRequestRecord } from './types.js';

/** What the chat handler needs from the emulator it runs in. */
export interface ChatContext {
  profile: Profile;
  tokenizer: Tokenizer;
  script: Script;
  /** Whether the script was given; without one, chat's requests get the chat script. */
  scriptChosen: boolean;
  faults: readonly FaultRule[];
  seed: number;
}

/** What an answered request hands to the writer of a wire format other than the profile's own. */
export interface GeneratedAnswer {
  response: ServerResponse;
  profile: Profile;
  reply: GeneratedReply;
  promptTokens: number;
  stream: boolean;
  requestNumber: number;
  fault: 'stream-cut' | 'malformed-sse' | undefined;
}

/** Another wire format served on top of the chat handler (the Responses API). */
export interface ChatWire {
  /** Writes the answer in this format. */
  write(answer: GeneratedAnswer): void;
  /** This format's rejection of an overflow, when it differs from the profile's chat one. */
  overflowReply?(kind: OverflowKind, reply: HttpReply): HttpReply;
}

/** The truncate fault's output limit when neither the request nor the profile sets one. */
const TRUNCATE_DEFAULT_LIMIT = 4_096;
const TRUNCATE_MAX_LIMIT = 65_536;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolNames(body: Json): string[] {
  const names: string[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isRecord(tool)) continue;
    const name = isRecord(tool.function) ? tool.function.name : tool.name;
    if (typeof name === 'string') names.push(name);
  }
  return names;
}

/** Checks common to every profile; returns the rejection, if any. */
function checkInput(
  profile: Profile,
  parsed: { body?: unknown; error?: string },
  requestNumber: number,
): { kind: BadInputKind | 'rejected_by_profile'; reply: HttpReply } | undefined {
  const reject = (kind: BadInputKind, detail: Json = {}) => ({
    kind,
    reply: profile.badInput(kind, { body: parsed.body, requestNumber, ...detail }),
  });
  if (parsed.error !== undefined) return reject('malformed_json', { error: parsed.error });
  const body = parsed.body;
  if (!isRecord(body)) return reject('not_object');
  if (body.messages === undefined) return reject('missing_messages');
  if (!Array.isArray(body.messages)) return reject('invalid_messages');
  if (body.messages.length === 0 && profile.rejectsEmptyMessages) return reject('empty_messages');
  for (const [index, message] of body.messages.entries()) {
    const role = isRecord(message) ? message.role : undefined;
    if (typeof role !== 'string' || (profile.roles && !profile.roles.includes(role)))
      return reject('unknown_role', { index, role });
  }
  const custom = profile.validate?.(body, { body, requestNumber });
  if (custom) return { kind: 'rejected_by_profile', reply: custom };
  const max =
    profile.format === 'anthropic' ? body.max_tokens : (body.max_completion_tokens ?? body.max_tokens);
  if (max !== undefined && max !== null && (!Number.isInteger(max) || (max as number) < 1))
    return reject('invalid_max_tokens');
  return undefined;
}

/**
 * Answers one chat request: validation with the profile's bad-input bodies, faults, token counting,
 * the profile's overflow checks, the scripted reply within the output limit, and the response in the
 * profile's wire format. Fills in `record` as it goes.
 */
export async function handleChat(
  context: ChatContext,
  {
    response,
    parsed,
    record,
    requestNumber,
    wire,
  }: {
    response: ServerResponse;
    parsed: { body?: unknown; error?: string };
    record: EmulatorRequestRecord;
    requestNumber: number;
    /** Answer in this wire format instead of the profile's chat format. */
    wire?: ChatWire;
  },
): Promise<void> {
  const { profile, tokenizer, seed } = context;
  const send = (reply: HttpReply): void => {
    record.status = reply.status;
    sendReply(response, reply);
  };
  const rejected = checkInput(profile, parsed, requestNumber);
  if (rejected) {
    record.badInput = rejected.kind;
    send(rejected.reply);
    return;
  }
  const body = parsed.body as Json;
  const stream = body.stream === true;
  const maxTokensField =
    profile.format === 'openai' && body.max_completion_tokens != null
      ? 'max_completion_tokens'
      : 'max_tokens';
  const maxTokens = (body[maxTokensField] ?? undefined) as number | undefined;
  record.stream = stream;
  record.maxTokens = maxTokens;

  const fault = faultFor(context.faults, { requestNumber, seed });
  record.fault = fault?.kind;
  if (fault?.kind === 'slow-first-byte') {
    await delay(fault.delayMs ?? 1_000, undefined, { ref: false });
    // The client may have given up (or the emulator closed) while it waited.
    if (response.destroyed || response.socket?.destroyed !== false) return;
  }
  if (fault?.kind === 'rate-limit' || fault?.kind === 'server-error' || fault?.kind === 'unavailable') {
    const retryAfter = fault.retryAfter ?? 1;
    const kind =
      fault.kind === 'rate-limit'
        ? 'rate_limit'
        : fault.kind === 'server-error'
          ? 'server_error'
          : 'unavailable';
    const reply = profile.failure(kind, { retryAfter, status: fault.status, requestNumber });
    send(
      kind === 'rate_limit'
        ? { ...reply, headers: { ...reply.headers, 'retry-after': String(retryAfter) } }
        : reply,
    );
    return;
  }

  const input = templateInputOf(body, { format: profile.format });
  const promptTokens = countTemplateTokens(input, tokenizer);
  record.promptTokens = promptTokens;
  const admission = profile.admit({
    body,
    input,
    promptTokens,
    maxTokens,
    maxTokensField,
    requestNumber,
    count: (other) => countTemplateTokens(other, tokenizer),
  });
  if (!admission.accepted) {
    record.overflow = admission.kind;
    send(wire?.overflowReply?.(admission.kind, admission.reply) ?? admission.reply);
    return;
  }
  record.reportedPromptTokens = admission.reportedPromptTokens;
  if (admission.note) record.note = admission.note;

  const messages = body.messages as unknown[];
  const declaredTools = toolNames(body);
  const script = selectScript({ script: context.script, chosen: context.scriptChosen, declaredTools });
  const assistantTurns = assistantTurnsOf(messages);
  const index = replyIndex(script, { assistantTurns, requestNumber });
  record.replyIndex = index;
  const resolved = answersAsGenericAgent({ script, chosen: context.scriptChosen, body, declaredTools })
    ? genericAgentReply({ tools: offeredTools(body), messages, step: assistantTurns })
    : resolveReply(script.replies[index] ?? {}, {
        seed,
        index,
        declaredTools,
        adaptToTools: script.adaptToTools,
        messages,
      });
  const thinking = isRecord(body.thinking) && body.thinking.type === 'enabled';
  const reasoningShown = profile.format === 'anthropic' ? thinking : profile.reasoningField !== undefined;
  const reasoningCounted =
    reasoningShown || (profile.name === 'openai' && body.reasoning_effort !== undefined);
  if (!reasoningCounted) resolved.reasoning = '';
  let limit = admission.outputLimit;
  if (fault?.kind === 'truncate') {
    limit = Math.min(limit, maxTokens ?? profile.outputCap ?? TRUNCATE_DEFAULT_LIMIT, TRUNCATE_MAX_LIMIT);
    resolved.text =
      `${resolved.text} ${fillerProse(createRandom(seed, 'truncate', requestNumber), limit + 16)}`.trim();
  }
  // Ids depend on the request's length too: a cut-down request that carries none of the earlier
  // turns must not get the ids the same reply made before (the same request gets the same ids).
  const ids = createRandom(seed, 'ids', index, messages.length);
  const anthropic = profile.format === 'anthropic';
  const generated = generateReply({
    reply: resolved,
    limit,
    tokenizer,
    callId: () => callIdFor(anthropic, index, ids),
  });
  if (fault?.kind === 'invalid-tool-json') {
    if (generated.toolCalls.length === 0)
      generated.toolCalls.push({
        id: callIdFor(anthropic, index, ids),
        name: toolNames(body)[0] ?? 'read_file',
        arguments: '{"path": "src/index.ts"}',
      });
    const first = generated.toolCalls[0];
    if (first) first.arguments = breakArguments(first.arguments);
    generated.finish = 'tool_calls';
    generated.completionTokens = measureReply(generated, tokenizer);
  }
  record.completionTokens = generated.completionTokens;
  record.finishReason = generated.finish;
  record.status = 200;
  const streamFault =
    fault?.kind === 'stream-cut' || fault?.kind === 'malformed-sse' ? fault.kind : undefined;
  if (wire) {
    const promptTokens = admission.reportedPromptTokens;
    wire.write({
      response,
      profile,
      reply: generated,
      promptTokens,
      stream,
      requestNumber,
      fault: streamFault,
    });
    return;
  }
  if (anthropic) {
    writeAnthropicReply({
      response,
      profile,
      id: `msg_01${ids.chars(22)}`,
      requestId: anthropicRequestId(seed, requestNumber),
      reply: generated,
      promptTokens: admission.reportedPromptTokens,
      stream,
      signature: ids.chars(88),
      fault: streamFault,
    });
    return;
  }
  const options = isRecord(body.stream_options) ? body.stream_options : {};
  writeOpenAIReply({
    response,
    profile,
    id: `chatcmpl-${createRandom(seed, 'completion-id', requestNumber).chars(24)}`,
    created: MODEL_CREATED + requestNumber,
    reply: generated,
    promptTokens: admission.reportedPromptTokens,
    stream,
    includeUsage: options.include_usage === true,
    showReasoning: reasoningShown,
    fault: streamFault,
  });
}

/**
 * A tool-call id that carries the index of the scripted reply that made it (`R` and three base-36
 * digits after the provider's prefix), so the script can tell how far a conversation has got even
 * when a client pruned or compacted its older turns away.
 */
function callIdFor(anthropic: boolean, index: number, ids: ReturnType<typeof createRandom>): string {
  const marker = `R${index.toString(36).padStart(3, '0')}`;
  return anthropic ? `toolu_01${marker}${ids.chars(18)}` : `call_${marker}${ids.chars(20)}`;
}

const CALL_ID_MARKER = /^(?:call_|toolu_01)R([0-9a-z]{3})/;

/**
 * How many assistant turns the conversation has had: the assistant messages it holds, or one past
 * the newest scripted reply a tool-call id names, whichever is larger. A pruned or compacted
 * conversation keeps its newest turn, so its progress through the script never goes backwards.
 */
function assistantTurnsOf(messages: unknown[]): number {
  let count = 0;
  let progress = 0;
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'assistant') continue;
    count++;
    const ids: unknown[] = [];
    if (Array.isArray(message.tool_calls))
      for (const call of message.tool_calls) if (isRecord(call)) ids.push(call.id);
    if (Array.isArray(message.content))
      for (const block of message.content)
        if (isRecord(block) && block.type === 'tool_use') ids.push(block.id);
    for (const id of ids) {
      const match = typeof id === 'string' ? CALL_ID_MARKER.exec(id) : null;
      if (match) progress = Math.max(progress, Number.parseInt(match[1] as string, 36) + 1);
    }
  }
  return Math.max(count, progress);
}

/**
 * @module
 * The provider side of a replay: a transport that counts every request it receives the way the
 * emulators do (the request rendered through the emulator's chat template, encoded with o200k),
 * rejects one over the window with OpenAI's wording (the emulator's `openai` profile), and otherwise
 * answers with the recorded reply of the step, reporting its count as `usage.prompt_tokens`.
 */
import {
  type ChatRequest,
  type FitResult,
  type Message,
  type Transport,
  type TransportResult,
  toOpenAIChat,
} from '../../../src/core/index.js';
import { countTemplateTokens, templateInputOf } from '../../../src/emulator/count-prompt-tokens.js';
import { getTokenizer, type OverflowKind } from '../../../src/emulator/index.js';
import { createProfile } from '../../../src/emulator/profiles/index.js';

/** What the provider saw of one request. */
export interface ProviderCall {
  request: ChatRequest;
  /** The request's prompt tokens on the provider's count. */
  realTokens: number;
  /** How the driver fitted it (budget, window, pruning), as it told the transport. */
  fit: FitResult;
  attempt: number;
  accepted: boolean;
  rejected?: OverflowKind;
  /** Tokens of the recorded reply (text and tool calls), for replies longer than the `max_tokens` sent. */
  replyTokens?: number;
}

/** Options of {@link createReplayProvider}. */
export interface ReplayProviderOptions {
  /** The window the provider enforces. */
  window: number;
  /** The model the provider serves (its id goes into nothing but the error wording). */
  model: string;
  /** The provider's output cap (default: the window, so only the window rejects). */
  outputCap?: number;
}

/** A replay provider: its transport, the reply it gives next, and every request it saw. */
export interface ReplayProvider {
  transport: Transport<Message>;
  calls: ProviderCall[];
  /** Sets the recorded reply the next requests are answered with. */
  answerWith(reply: Message): void;
}

/** Prompt tokens of a normalized request on the provider's count. */
export function countRequest(request: ChatRequest): number {
  return countTemplateTokens(
    templateInputOf(toOpenAIChat(request), { format: 'openai' }),
    getTokenizer('o200k'),
  );
}

function replyTokens(reply: Message): number {
  const tokenizer = getTokenizer('o200k');
  const text = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
  const calls = reply.role === 'assistant' ? (reply.toolCalls ?? []) : [];
  return tokenizer.count(text) + calls.reduce((sum, call) => sum + tokenizer.count(call.arguments), 0);
}

/**
 * Makes the provider of one replay run.
 *
 * @example
 * const provider = createReplayProvider({ window: 16_384, model: 'gpt-4o' });
 * provider.answerWith(transcript.messages[step.at]);
 * await driver.send({ request, transport: provider.transport });
 */
export function createReplayProvider({
  window,
  model,
  outputCap = window,
}: ReplayProviderOptions): ReplayProvider {
  const profile = createProfile('openai', { model, contextLength: window, outputCap, seed: 0 });
  const calls: ProviderCall[] = [];
  let next: Message | undefined;
  const transport: Transport<Message> = {
    async send(request, { attempt, fit }): Promise<TransportResult<Message>> {
      const body = toOpenAIChat(request) as unknown as Record<string, unknown>;
      const input = templateInputOf(body, { format: 'openai' });
      const tokenizer = getTokenizer('o200k');
      const realTokens = countTemplateTokens(input, tokenizer);
      const maxTokensField = request.maxTokensField ?? 'max_tokens';
      const admission = profile.admit({
        body,
        input,
        promptTokens: realTokens,
        maxTokens: request.maxTokens,
        maxTokensField,
        requestNumber: calls.length + 1,
        count: (other) => countTemplateTokens(other, tokenizer),
      });
      const call: ProviderCall = { request, realTokens, fit, attempt, accepted: admission.accepted };
      calls.push(call);
      if (!admission.accepted) {
        call.rejected = admission.kind;
        const message = (admission.reply.body as { error: { message: string } }).error.message;
        return {
          ok: false,
          failure: 'rejected',
          error: new Error(message),
          status: admission.reply.status,
          body: JSON.stringify(admission.reply.body),
        };
      }
      if (!next) throw new Error('the replay set no reply for this step');
      call.replyTokens = replyTokens(next);
      const toolCalls = next.role === 'assistant' ? (next.toolCalls ?? []) : [];
      return {
        ok: true,
        response: next,
        usage: { promptTokens: realTokens, completionTokens: call.replyTokens },
        finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        toolCalls,
      };
    },
  };
  return {
    transport,
    calls,
    answerWith(reply) {
      next = reply;
    },
  };
}

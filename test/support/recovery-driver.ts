/**
 * A small agent driver for recovery tests: user message → send → tool results from the emulator's
 * `fakeToolResult` → send → …, with or without Spillway. With a manager every send is fitted, an
 * overflow is recovered once per turn (`recoverFromOverflow`) and a turn that still fails is rolled
 * back to before it (its own messages only; a compaction made during it stays). Without one, the
 * request goes out as built, with the `maxTokens` given, and a failed turn is rolled back the same way.
 */
import {
  type ChatRequest,
  type CompactionResult,
  ContextTruncatedError,
  type ContextWindowManager,
  contentText,
  type Message,
  type RecoveryResult,
  recoverFromOverflow,
  type Summarizer,
  type ToolDefinition,
} from '../../src/core/index.js';
import { fakeToolResult } from '../../src/emulator/index.js';
import { type ModelClient, ProviderError } from '../../src/providers/index.js';

/** The coding tools the emulator's scripted model calls. */
export const CODING_TOOLS: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file of the repository.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'search',
    description: 'Search the repository for a pattern.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, path: { type: 'string' } },
      required: ['query'],
    },
  },
  {
    name: 'run',
    description: 'Run a shell command in the repository.',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

/** A summarizer that sends summary requests with `client`. */
export function clientSummarizer(client: ModelClient): Summarizer {
  return async (request, { signal }) => {
    const response = await client.send(request, signal === undefined ? {} : { signal });
    return {
      text: contentText(response.message.content),
      ...(response.usage
        ? {
            usage: {
              promptTokens: response.usage.promptTokens,
              completionTokens: response.usage.completionTokens,
            },
          }
        : {}),
    };
  };
}

/** One provider call the driver made, as it ended. */
export interface DriverCall {
  turn: number;
  ok: boolean;
  /** Prompt tokens the provider reported (accepted calls). */
  promptTokens?: number;
  /** The overflow kind the provider rejected it with. */
  overflow?: string;
  recovery?: boolean;
}

/** How one user turn ended. */
export interface TurnOutcome {
  ok: boolean;
  /** The tool calls the model made in this turn. */
  toolCalls: number;
  recovery?: RecoveryResult;
  /** Why it failed. */
  reason?: string;
}

/** Options of {@link RecoveryDriver}. */
export interface RecoveryDriverOptions {
  client: ModelClient;
  model: string;
  system: string;
  tools?: ToolDefinition[];
  /** Spillway; without it every request goes out as built. */
  manager?: ContextWindowManager;
  summarize?: Summarizer;
  /** The `max_tokens` of every request (the plain client sends the advertised cap). */
  maxTokens?: number;
  /** Model calls per user turn (default 2). */
  steps?: number;
  /** Size in tokens of each fake tool result. */
  toolTokens?: number;
  seed?: number;
}

/** The driver: keeps the history, runs turns, records every provider call. */
export class RecoveryDriver {
  history: Message[];
  readonly calls: DriverCall[] = [];
  readonly options: RecoveryDriverOptions;
  #turn = 0;

  constructor(options: RecoveryDriverOptions) {
    this.options = options;
    this.history = [{ role: 'system', content: options.system }];
  }

  #request(): ChatRequest {
    const { model, tools = CODING_TOOLS, maxTokens } = this.options;
    return {
      format: 'openai',
      model,
      messages: this.history,
      tools,
      extra: {},
      ...(maxTokens === undefined ? {} : { maxTokens }),
    };
  }

  /** Runs one user turn. */
  async turn(text: string): Promise<TurnOutcome> {
    const { client, manager, summarize, steps = 2, toolTokens = 1_200, seed = 0 } = this.options;
    const turn = ++this.#turn;
    const own = new Set<Message>();
    const append = (message: Message) => {
      own.add(message);
      this.history = [...this.history, message];
    };
    const rollback = (reason: string, recovery?: RecoveryResult): TurnOutcome => {
      this.history = this.history.filter((message) => !own.has(message));
      return { ok: false, toolCalls, reason, ...(recovery ? { recovery } : {}) };
    };
    let toolCalls = 0;
    let recovery: RecoveryResult | undefined;
    append({ role: 'user', content: text });
    for (let step = 0; step < steps; step++) {
      const request = this.#request();
      let toSend = request;
      if (manager) {
        try {
          toSend = manager.fit(request).request;
        } catch (error) {
          if (ContextTruncatedError.isInstance(error)) return rollback(error.message, recovery);
          throw error;
        }
      }
      let response: Awaited<ReturnType<ModelClient['send']>>;
      try {
        response = await client.send(toSend);
      } catch (error) {
        if (!ProviderError.isInstance(error) || error.overflow.kind === 'none') throw error;
        this.calls.push({ turn, ok: false, overflow: error.overflow.kind });
        if (!manager || recovery) return rollback(error.message, recovery);
        recovery = await recoverFromOverflow({
          request,
          overflow: error.overflow,
          manager,
          ...(summarize ? { summarize } : {}),
        });
        if (recovery.action === 'give_up' || !recovery.request)
          return rollback(recovery.message ?? 'recovery gave up', recovery);
        if (recovery.messages) this.history = recovery.messages;
        try {
          response = await client.send(recovery.request);
        } catch (retryError) {
          if (!ProviderError.isInstance(retryError)) throw retryError;
          this.calls.push({ turn, ok: false, overflow: retryError.overflow.kind, recovery: true });
          return rollback(retryError.message, recovery);
        }
        this.calls.push({ turn, ok: true, promptTokens: response.usage?.promptTokens, recovery: true });
        if (response.usage) manager.observe({ promptTokens: response.usage.promptTokens });
        this.#answer(response.message, append, seed, toolTokens);
        toolCalls += response.message.toolCalls?.length ?? 0;
        if (!response.message.toolCalls?.length) break;
        continue;
      }
      this.calls.push({ turn, ok: true, promptTokens: response.usage?.promptTokens });
      if (manager && response.usage) manager.observe({ promptTokens: response.usage.promptTokens });
      this.#answer(response.message, append, seed, toolTokens);
      toolCalls += response.message.toolCalls?.length ?? 0;
      if (!response.message.toolCalls?.length) break;
    }
    return { ok: true, toolCalls, ...(recovery ? { recovery } : {}) };
  }

  #answer(reply: Message, append: (message: Message) => void, seed: number, size: number): void {
    append(reply);
    if (reply.role !== 'assistant') return;
    for (const call of reply.toolCalls ?? [])
      append({
        role: 'tool',
        toolCallId: call.id,
        content: fakeToolResult({ name: call.name, args: call.arguments, seed: seed + this.#turn, size }),
      });
  }

  /** A manual compaction (`/compact`) of the whole history with the manager. */
  async compact(): Promise<CompactionResult> {
    const { manager, summarize, tools = CODING_TOOLS, model } = this.options;
    if (!manager) throw new Error('compaction needs a manager');
    const result = await manager.compact({
      messages: this.history,
      tools,
      model,
      ...(summarize ? { summarize } : {}),
    });
    if (result.ok) this.history = result.messages;
    return result;
  }
}

/**
 * @module
 * Manual and exhaustion compaction for the chat: the manager's `compact` (core's `compactTranscript`
 * with the manager's window, budget and calibrated estimate: a summary written by the model, fitted
 * to the window), else core's `compactTranscript`, else a non-LLM digest of the older turns, for
 * builds of core that have neither.
 */
import {
  type ChatRequest,
  type ContextWindowManager,
  contentText,
  type Message,
  type RequestFormat,
  splitTurns,
  type ToolDefinition,
  type UserMessage,
} from '../core/index.js';
import type { ModelClient } from '../providers/index.js';

/** What a compaction did. */
export type CompactHistoryResult =
  | { ok: true; kind: string; messages: Message[]; removed: Message[]; steps: string[] }
  | { ok: false; message: string; steps: string[] };

/** Options of {@link compactHistory}. */
export interface CompactHistoryOptions {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  client: ModelClient;
  /** Its `compact` is used when it has one. */
  manager?: ContextWindowManager;
  model: string;
  window: number;
  budget: number;
  summaryMaxTokens?: number;
  signal?: AbortSignal;
}

type Summarize = (
  request: ChatRequest,
  options: { signal?: AbortSignal },
) => Promise<{ text: string; usage?: { promptTokens: number; completionTokens: number } }>;

/** The part of core's `compactTranscript` (and of `ContextWindowManager.compact`) the chat relies on. */
type CoreCompactTranscript = (options: {
  messages: readonly Message[];
  tools?: readonly ToolDefinition[];
  model?: string;
  format?: RequestFormat;
  summarize?: Summarize;
  signal?: AbortSignal;
  window?: number;
  budget?: number;
  summaryMaxTokens?: number;
}) => Promise<{
  ok: boolean;
  kind?: string;
  messages?: Message[];
  removed?: Message[];
  message?: string;
  code?: string;
  steps: string[];
}>;

/** Core's `compactTranscript`, when this build of core exports it. */
export async function coreCompaction(): Promise<CoreCompactTranscript | undefined> {
  const core = (await import('../core/index.js')) as unknown as { compactTranscript?: CoreCompactTranscript };
  return core.compactTranscript;
}

/** Characters of assistant text a digest line keeps. */
const DIGEST_TEXT_CHARS = 160;

function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
}

/**
 * The non-LLM digest: the head and the newest turn stay; everything between becomes one user-role
 * message listing what happened (user messages verbatim up to a line, assistant text cut short, one
 * line per tool call). Turns are whole, so no tool call loses its result.
 */
export function digestHistory(messages: readonly Message[]): CompactHistoryResult {
  const { head, turns } = splitTurns(messages);
  const newest = turns.at(-1);
  if (!newest || turns.length < 2)
    return { ok: false, message: 'there is no history before the newest turn to compact', steps: [] };
  const removed = messages.slice(head.end, newest.start);
  const lines: string[] = [];
  for (const message of removed) {
    if (message.role === 'user') lines.push(`- user: ${oneLine(contentText(message.content), 600)}`);
    else if (message.role === 'assistant') {
      const text = oneLine(contentText(message.content), DIGEST_TEXT_CHARS);
      if (text !== '') lines.push(`- assistant: ${text}`);
      for (const call of message.toolCalls ?? [])
        lines.push(`- [tool ${call.name}(${oneLine(call.arguments, 120)}) ran, result elided]`);
    }
  }
  const summary: UserMessage = {
    role: 'user',
    content: `[compacted: ${removed.length} earlier messages (${turns.length - 1} turns) were taken out to save room. What happened in them:]\n${lines.join('\n')}`,
  };
  return {
    ok: true,
    kind: 'digest',
    messages: [...messages.slice(0, head.end), summary, ...messages.slice(newest.start)],
    removed,
    steps: [`digest of ${turns.length - 1} turns (no model call)`],
  };
}

/**
 * Compacts the chat's history. With core's `compactTranscript` the model writes the summary (its
 * request fitted to the window, `summaryMaxTokens` its cap); a result that core does not accept, or
 * a build without it, falls back to {@link digestHistory}.
 *
 * @example
 * const result = await compactHistory({ messages, tools, client, model, window: 32_768, budget: 27_000 });
 */
export async function compactHistory(options: CompactHistoryOptions): Promise<CompactHistoryResult> {
  const managerCompact = (options.manager as { compact?: CoreCompactTranscript } | undefined)?.compact;
  const compactTranscript = managerCompact?.bind(options.manager) ?? (await coreCompaction());
  if (!compactTranscript) return digestHistory(options.messages);
  const { client, signal } = options;
  const result = await compactTranscript({
    messages: options.messages,
    tools: options.tools,
    model: options.model,
    format: client.format,
    window: options.window,
    budget: options.budget,
    ...(options.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: options.summaryMaxTokens }),
    ...(signal ? { signal } : {}),
    summarize: async (request, { signal: summarySignal }) => {
      const response = await client.send(
        { ...request, model: request.model ?? options.model },
        summarySignal ? { signal: summarySignal } : {},
      );
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
    },
  });
  if (result.ok && result.messages && result.removed)
    return {
      ok: true,
      kind: result.kind ?? 'llm',
      messages: result.messages,
      removed: result.removed,
      steps: result.steps,
    };
  const fallback = digestHistory(options.messages);
  if (fallback.ok)
    return {
      ...fallback,
      steps: [...result.steps, `core compaction failed (${result.message}); digest instead`],
    };
  return { ok: false, message: result.message ?? fallback.message, steps: result.steps };
}

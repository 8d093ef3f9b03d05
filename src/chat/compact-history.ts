/**
 * @module
 * Manual and exhaustion compaction for the chat: the manager's `compact` (core's
 * `compactTranscript` with the manager's window, budget and calibrated estimate), the summary
 * written by the model through the chat's client.
 */
import type { ContextWindowManager, Message, ToolDefinition } from '../core/index.js';
import { clientSummarizer } from '../loop/index.js';
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
  manager: ContextWindowManager;
  model: string;
  summaryMaxTokens?: number;
  /** Whole turns kept verbatim (default: the newest that fit in 30% of the budget, at least one). */
  keepTurns?: number;
  signal?: AbortSignal;
}

/**
 * Compacts the chat's history with the manager: the older turns become one summary the model writes
 * (its request fitted to the window, `summaryMaxTokens` its cap; core falls back to a non-LLM digest
 * when the model cannot write one), the newest turns stay verbatim.
 *
 * @example
 * const result = await compactHistory({ messages, tools, client, manager, model });
 * if (result.ok) history = result.messages; // result.removed goes to the store
 */
export async function compactHistory(options: CompactHistoryOptions): Promise<CompactHistoryResult> {
  const { client, manager, model, signal } = options;
  const result = await manager.compact({
    messages: options.messages,
    tools: [...options.tools],
    model,
    format: client.format,
    summarize: clientSummarizer(client, model),
    ...(options.summaryMaxTokens === undefined ? {} : { summaryMaxTokens: options.summaryMaxTokens }),
    ...(options.keepTurns === undefined ? {} : { keepTurns: options.keepTurns }),
    ...(signal ? { signal } : {}),
  });
  if (result.ok)
    return {
      ok: true,
      kind: result.kind,
      messages: result.messages,
      removed: result.removed,
      steps: result.steps,
    };
  return { ok: false, message: result.message, steps: result.steps };
}

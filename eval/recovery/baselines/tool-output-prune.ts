/**
 * Old tool outputs cleared, by opencode's prune rule (sst/opencode
 * `packages/opencode/src/session/compaction.ts`, commit 31e22f65, `prune`): walking back from the
 * newest, tool outputs are counted (characters / 4) until `PRUNE_PROTECT` tokens of them are kept;
 * older ones are cleared only when together they exceed `PRUNE_MINIMUM`, the walk stops at the first
 * output already cleared, and a cleared output stays cleared (one fixed placeholder, so the request
 * keeps the same bytes until the next prune). opencode prunes between user prompts with 40,000 /
 * 20,000 tokens for 200k windows; here it runs before every send, with the thresholds scaled to the
 * window (20% / 10%), since each scenario is one prompt. No recovery: an overflow ends the session.
 */
import type { Message, ToolMessage } from '../../../src/core/index.js';
import type { ModelClient } from '../../../src/providers/index.js';
import { messageChars } from './approximate-tokens.js';
import { clientWith } from './summary-request.js';

const PROTECT_SHARE = 40_000 / 200_000;
const MINIMUM_SHARE = 20_000 / 200_000;
const CLEARED = '[old tool result cleared]';

/** The tool calls whose outputs one prune pass clears. */
export function pruneOutputs(
  messages: readonly Message[],
  cleared: ReadonlySet<string>,
  { protect, minimum }: { protect: number; minimum: number },
): string[] {
  let total = 0;
  let pruned = 0;
  const ids: string[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role !== 'tool') continue;
    if (cleared.has(message.toolCallId)) break;
    const tokens = Math.round(messageChars(message) / 4);
    total += tokens;
    if (total <= protect) continue;
    pruned += tokens;
    ids.push(message.toolCallId);
  }
  return pruned > minimum ? ids : [];
}

export function toolOutputPruneClient(inner: ModelClient, { window }: { window: number }): ModelClient {
  const limits = { protect: PROTECT_SHARE * window, minimum: MINIMUM_SHARE * window };
  const cleared = new Set<string>();
  const stubs = new Map<string, ToolMessage>();
  const stub = (message: ToolMessage): ToolMessage => {
    let replaced = stubs.get(message.toolCallId);
    if (!replaced) {
      replaced = { ...message, content: CLEARED };
      stubs.set(message.toolCallId, replaced);
    }
    return replaced;
  };
  return clientWith(inner, (request, options) => {
    for (const id of pruneOutputs(request.messages, cleared, limits)) cleared.add(id);
    const messages = request.messages.map((message) =>
      message.role === 'tool' && cleared.has(message.toolCallId) ? stub(message) : message,
    );
    return inner.send({ ...request, messages }, options);
  });
}

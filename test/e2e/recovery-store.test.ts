/**
 * The contract between recovery and the session store: a compaction recovery made during a turn is
 * written with `applyCompaction` under its own turn id; when the retry fails too, `rollbackTurn`
 * drops only that turn's own messages, and the compaction (its summary in the live transcript, the
 * compacted-away messages in its record) stays.
 */
import { describe, expect, it } from 'vitest';
import {
  ContextWindowManager,
  contentText,
  type Message,
  type RecoveryResult,
  recall,
  recoverFromOverflow,
} from '../../src/core/index.js';
import {
  createMemorySessionStore,
  type SqliteSessionStore,
  type StoredMessage,
} from '../../src/store/index.js';
import { charCounter, codingSession, recordingSummarizer } from '../support/compaction-fixtures.js';

const MODEL = 'test-model';

/** Writes a coding session turn by turn (t1 holds the head), then the failing turn's user message. */
function seed(store: SqliteSessionStore): { id: string; failing: Message } {
  const { id } = store.createSession({ model: MODEL });
  const messages = codingSession({ turns: 14, lines: 40 }).slice(0, -1);
  store.appendTurn(id, { turnId: 't1', messages: messages.slice(0, 2) });
  for (let index = 2, turn = 2; index < messages.length; index += 2, turn++)
    store.appendTurn(id, { turnId: `t${turn}`, messages: messages.slice(index, index + 2) });
  const failing: Message = { role: 'user', content: 'Now also port src/module3/file3.ts to the new API.' };
  store.appendTurn(id, { turnId: 'failing', messages: [failing] });
  return { id, failing };
}

async function recoverFromStore(store: SqliteSessionStore, id: string) {
  const live = store.liveMessages(id);
  const history = live.map((stored) => stored.message);
  const seqOf = new Map<Message, number>(live.map((stored) => [stored.message, stored.seq]));
  const manager = new ContextWindowManager({ counter: charCounter, contextLength: 64_000, model: MODEL });
  const result = await recoverFromOverflow({
    request: { format: 'openai', model: MODEL, messages: history, tools: [], extra: {} },
    overflow: { kind: 'context', window: 12_000, input: 20_000, pattern: 'test' },
    manager,
    summarize: recordingSummarizer(),
  });
  return { result, seqOf, history };
}

function writeCompaction(
  store: SqliteSessionStore,
  id: string,
  turnId: string,
  result: RecoveryResult,
  seqOf: Map<Message, number>,
) {
  if (!('messages' in result)) throw new Error(`expected a history change, got ${result.action}`);
  return store.applyCompaction(id, {
    turnId,
    kind: result.action,
    transcript: result.messages.map((message) => {
      const seq = seqOf.get(message);
      return seq === undefined ? { message } : { seq };
    }),
    info: { recall: result.recall.map((span) => span.id) },
  });
}

/** The history a recovery continued with. */
function reduced(result: RecoveryResult) {
  if (!('messages' in result)) throw new Error(`expected a history change, got ${result.action}`);
  return result;
}

const texts = (messages: readonly (Message | StoredMessage)[]) =>
  messages.map((item) => contentText(('seq' in item ? item.message : item).content));

describe('failed-turn rollback keeps the compaction', () => {
  it('drops only the failed turn’s own messages; the summary and the compaction record stay', async () => {
    const store = createMemorySessionStore();
    const { id, failing } = seed(store);
    const { result, seqOf, history } = await recoverFromStore(store, id);
    // The store hands back its own copies: the failing turn's message is the history's last one.
    const own = history.at(-1);
    expect(contentText(own?.content ?? '')).toBe(contentText(failing.content));
    expect(result.action).toBe('compacted');
    const record = writeCompaction(store, id, 'compaction-1', result, seqOf);
    expect(texts(record.removed)).toEqual(texts(reduced(result).removed));

    // The retry failed as well: the turn is rolled back.
    expect(store.rollbackTurn(id, 'failing')).toBe(1);
    const after = store.liveMessages(id);
    expect(texts(after)).toEqual(texts(reduced(result).messages.filter((message) => message !== own)));
    expect(texts(after).some((text) => text.startsWith('[compacted #'))).toBe(true);
    expect(texts(after)).not.toContain(contentText(failing.content));
    // Nothing is lost: every message of the history is live or in the compaction record.
    const kept = new Set([...texts(after), ...texts(store.compactions(id)[0]?.removed ?? [])]);
    for (const message of history.filter((item) => item !== own))
      expect(kept.has(contentText(message.content))).toBe(true);

    // The placeholder's span can be recalled from the stored record.
    const stored = store.compactions(id)[0];
    const recallId = ((stored?.info?.recall as string[] | undefined) ?? [])[0] ?? '';
    const span = {
      id: recallId,
      kind: 'compacted' as const,
      label: 'from the store',
      messages: stored?.removed.map((item) => item.message) ?? [],
    };
    const back = recall({ id: recallId }, [span]);
    expect(back.ok && back.text).toContain('[assistant]\nLooking at src/module0/file0.ts.');
  });

  it('written under the failed turn’s own id, the summary would go with the rollback: give it its own id', async () => {
    const store = createMemorySessionStore();
    const { id } = seed(store);
    const { result, seqOf } = await recoverFromStore(store, id);
    writeCompaction(store, id, 'failing', result, seqOf);
    store.rollbackTurn(id, 'failing');
    expect(texts(store.liveMessages(id)).some((text) => text.startsWith('[compacted #'))).toBe(false);
  });
});

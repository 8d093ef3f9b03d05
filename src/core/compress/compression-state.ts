/**
 * @module
 * The state of progressive tool-output compression: per tool result, the level it reached and the
 * exact text it renders to. Plain JSON data, so it travels with a suspended run and a session.
 */

/** How far a tool result is compressed, from nothing to a one-line stub. */
export type CompressionLevel = 'full' | 'truncated' | 'outline' | 'elided';

/** The levels in the order they escalate. */
export const COMPRESSION_LEVELS: readonly CompressionLevel[] = ['full', 'truncated', 'outline', 'elided'];

/** A level above `full`: what a {@link CompressionEntry} records. */
export type CompressedLevel = Exclude<CompressionLevel, 'full'>;

/** One compressed tool result: its level, the bytes it renders to, and the id its placeholder names. */
export interface CompressionEntry {
  level: CompressedLevel;
  /** The rendered content, sent instead of the result on every later request (byte for byte). */
  text: string;
  /** The recall id in the placeholder (`[elided #41: …]`); `recall` fetches the original with it. */
  recallId: number;
  /**
   * The fingerprint of the result and call it was made from (`entrySource`): the entry is applied
   * only to a result with the same one, never to another result that reuses the tool-call id.
   */
  source: string;
}

/** The placeholder `fit` puts where it pruned whole turns, kept so the same prune renders the same. */
export interface PruneMarkerState {
  recallId: number;
  /** How many messages it stands for. */
  dropped: number;
  text: string;
}

/**
 * Compression levels by tool-call id, the next recall id, and the current prune placeholder. Levels
 * only ever escalate; a stored text never changes once written.
 */
export interface CompressionState {
  entries: Readonly<Record<string, CompressionEntry>>;
  /** The id the next placeholder gets (compression, pruning and compaction share one sequence). */
  nextRecallId: number;
  pruned?: PruneMarkerState;
}

/** An empty state; recall ids start at `firstRecallId` (default 1). */
export function createCompressionState({
  firstRecallId = 1,
}: {
  firstRecallId?: number;
} = {}): CompressionState {
  return { entries: {}, nextRecallId: firstRecallId };
}

/** The rank of a level: 0 for `full` up to 3 for `elided`. */
export function levelRank(level: CompressionLevel): number {
  return COMPRESSION_LEVELS.indexOf(level);
}

/**
 * Checks a state read back from storage; returns a fresh state for anything malformed rather than
 * trusting it (a wrong entry would change what is sent). An entry without the fingerprint of what it
 * was made from is dropped: it could not be matched to its own result.
 */
export function parseCompressionState(value: unknown): CompressionState {
  if (typeof value !== 'object' || value === null) return createCompressionState();
  const raw = value as Record<string, unknown>;
  const next = raw.nextRecallId;
  if (typeof next !== 'number' || !Number.isSafeInteger(next) || next < 1) return createCompressionState();
  const entries: Record<string, CompressionEntry> = {};
  if (typeof raw.entries === 'object' && raw.entries !== null) {
    for (const [id, entry] of Object.entries(raw.entries as Record<string, unknown>)) {
      const item = entry as Partial<CompressionEntry> | null;
      if (
        item &&
        (item.level === 'truncated' || item.level === 'outline' || item.level === 'elided') &&
        typeof item.text === 'string' &&
        typeof item.recallId === 'number' &&
        typeof item.source === 'string'
      )
        entries[id] = { level: item.level, text: item.text, recallId: item.recallId, source: item.source };
    }
  }
  const state: CompressionState = { entries, nextRecallId: next };
  const pruned = raw.pruned as Partial<PruneMarkerState> | undefined;
  if (
    pruned &&
    typeof pruned.recallId === 'number' &&
    typeof pruned.dropped === 'number' &&
    typeof pruned.text === 'string'
  )
    state.pruned = { recallId: pruned.recallId, dropped: pruned.dropped, text: pruned.text };
  return state;
}

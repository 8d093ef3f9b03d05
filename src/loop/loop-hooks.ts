/**
 * @module
 * What a run tells its caller to keep: the history it starts from, every finished turn, and every
 * change a send made to the history. The caller owns the storage (`sessionStoreHooks` in
 * `spillway/store` writes them to a session).
 */
import type { HistoryChange, Message } from '../core/index.js';
import type { LoopState } from './loop-state.js';

/** A finished turn: the messages it added, the usage it cost, the state to resume from. */
export interface LoopTurn {
  turnId: string;
  messages: Message[];
  usage: { promptTokens: number; completionTokens: number; model?: string }[];
  state: Pick<LoopState, 'iterations' | 'driver'>;
}

/** Observers of what a run must keep; each is called synchronously, in order. */
export interface LoopHooks {
  /** The history the run starts from (the task, or what a resume carries). */
  onStart?: (messages: readonly Message[]) => void;
  /** A finished turn. */
  onTurn?: (turn: LoopTurn) => void;
  /** A compaction or truncation the send path made, within the turn `turnId`. */
  onHistoryChange?: (change: HistoryChange & { turnId: string }) => void;
}

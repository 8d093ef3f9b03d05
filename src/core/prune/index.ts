/**
 * @module
 * Turn-atomic pruning: drop the oldest whole turns, never the head or the newest turn.
 */
export { type PruneOptions, type PruneResult, pruneTurns } from './prune-turns.js';

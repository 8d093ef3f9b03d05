/**
 * @module
 * Cuts that pay: how deep a cut goes, the markers it leaves, and an oversized newest turn shortened
 * instead of refused. The manager's fit chooses among cuts by what they cost the prefix cache.
 */
export {
  CUT_RUNWAY_TURNS,
  cutTarget,
  DEFAULT_APPEND_SHARE,
  MIN_CUT_TARGET_SHARE,
  nextAppendRate,
} from './cut-target.js';
export { type CutMiddle, type KeepEndsOptions, keepEnds } from './head-and-tail.js';
export {
  droppedTurnsMarker,
  ledgerText,
  MAX_LEDGER_CHARS,
  type MarkerOptions,
  namesText,
  shortenedMarker,
} from './markers.js';
export {
  newestRunResults,
  type ShortenNewestOptions,
  type ShortenNewestResult,
  shortenedText,
  shortenNewest,
} from './shorten-newest.js';

/**
 * @module
 * Model limits, the prompt budget, the output clamp and windows learned from overflow errors.
 */
export {
  type Budget,
  type BudgetOptions,
  COUNTED_MARGIN,
  computeBudget,
  DEFAULT_RESERVE,
  DEFAULT_SAFETY_RATIO,
  FALLBACK_CONTEXT_LENGTH,
  MAX_RESERVE_SHARE,
  type ModelLimits,
  replyReserve,
  type WindowCheck,
  windowRoomText,
} from './budget.js';
export {
  CLAMP_MARGIN,
  type ClampMode,
  type ClampOptions,
  clampOutputTokens,
  MIN_CLAMPED_OUTPUT,
} from './clamp-output-tokens.js';
export {
  isPlausibleWindow,
  type LearnedWindows,
  learnWindow,
  MAX_LEARNED_WINDOW,
  MIN_LEARNED_WINDOW,
} from './learned-windows.js';

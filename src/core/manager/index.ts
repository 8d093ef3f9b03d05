/**
 * @module
 * The `ContextWindowManager`: one per run, it composes normalization, budget, estimation, pruning and
 * the output clamp for every provider send, and learns from what providers report.
 */
export {
  ContextWindowManager,
  type ContextWindowManagerOptions,
  type FitResult,
  type ManagerState,
  type PersistedAnchor,
  type UsageReport,
} from './context-window-manager.js';
export type { ManagerEvent, ManagerNotice } from './events.js';
export type { ManagerCompactOptions, RequestMeasure } from './manager-options.js';

/**
 * @module
 * The `ContextWindowManager`: one per run, it composes normalization, budget, estimation, pruning and
 * the output clamp for every provider send, and learns from what providers report.
 */
export { ContextWindowManager, type ContextWindowManagerOptions } from './context-window-manager.js';
export type { ManagerEvent, ManagerNotice } from './events.js';
export type { CutAction, CutReport, FitResult } from './fit-result.js';
export type { ManagerCompactOptions, RequestMeasure } from './manager-options.js';
export type { ManagerState, PersistedAnchor, UsageReport } from './manager-state.js';
export type { CountSource, FitVerdict, RequestCount } from './request-count.js';

/**
 * @module
 * What Spillway reports as it works: one union for the manager, the driver and every surface. The
 * tool loop adds its own kinds and an `iteration`; adapters add the `model`.
 */
import type { ManagerEvent } from '../manager/index.js';
import type { OverflowKind } from '../overflow/index.js';
import type { RecoveryAction, RecoveryStep } from '../recovery/index.js';
import type { RetryReason } from './retry-policy.js';

/** The driver's own events. */
export type DriverEvent =
  /** The provider rejected a fitted request as too large. */
  | { type: 'overflow'; kind: Exclude<OverflowKind, 'none'>; pattern: string; status?: number }
  /** What recovery did about it; `action: 'give_up'` ends the send. */
  | {
      type: 'recovery';
      action: RecoveryAction;
      overflow: Exclude<OverflowKind, 'none'>;
      steps: RecoveryStep[];
      message?: string;
    }
  /** An attempt repeated under a retry class. */
  | { type: 'retry'; reason: RetryReason; attempt: number; message: string }
  /** A request only the estimate called too large, counted exactly before it was sent. */
  | { type: 'count'; promptTokens: number; estimate: number; budget: number }
  /** Prompt tokens the provider reported, fed back to the manager. */
  | { type: 'usage'; promptTokens: number; completionTokens?: number; cachedTokens?: number }
  | { type: 'compaction-start'; reason: 'overflow' | 'exhaustion' | 'manual' }
  | { type: 'compaction-end'; removed: number; kind: string };

/** Every event Spillway's send path reports. */
export type SpillwayEvent = ManagerEvent | DriverEvent;

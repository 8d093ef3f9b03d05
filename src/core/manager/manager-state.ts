/**
 * @module
 * A manager's state between sends, as plain data: what a suspended run carries and what the proxy
 * keeps per conversation. Everything read back is checked; a malformed part is dropped, not trusted.
 */
import type { LearnedWindows, WindowCheck } from '../budget/index.js';
import type { CompressionState } from '../compress/index.js';
import type { Calibration } from '../tokens/index.js';
import type { StickyCut } from './sticky-cut.js';

/** What the provider reported about the last request. */
export interface UsageReport {
  /** Every prompt token, cached ones included (Anthropic: input + cache creation + cache read tokens). */
  promptTokens: number;
  completionTokens?: number;
  /** Prompt tokens the provider served from its cache, when it says. */
  cachedTokens?: number;
}

/** A provider-counted request, kept as digests of what was sent. */
export interface PersistedAnchor {
  /** How many messages were sent, and the digest of them (`digestMessages`). */
  messages: number;
  digest: string;
  /** The digest of the tool definitions sent. */
  tools: string;
  /** Prompt tokens the provider reported for it. */
  reported: number;
}

/** A manager's state between sends. */
export interface ManagerState {
  calibration: Calibration;
  learnedWindows: LearnedWindows;
  /** Sticky compression levels and recall ids (always present in `manager.state`). */
  compression?: CompressionState;
  /** Output caps learned from `output_cap` overflows, by model (always present in `manager.state`). */
  learnedOutputCaps?: Readonly<Record<string, number>>;
  /** What the provider checks against the window, learned from overflows, by model. */
  learnedWindowChecks?: Readonly<Record<string, WindowCheck>>;
  /**
   * The last request the provider counted, as digests: a manager restored from this state (a
   * proxy's next request of the same conversation) anchors on it as if it had sent it.
   */
  anchor?: PersistedAnchor;
  /** Where the run's last cut left its history: later sends leave out the same turns. */
  cut?: StickyCut;
  /** Tokens the conversation appends per send, lately (how deep a cut goes). */
  appendRate?: number;
}

/** A persisted anchor read back from storage, or undefined for anything malformed. */
export function parseAnchor(value: unknown): PersistedAnchor | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const anchor = value as Record<string, unknown>;
  return Number.isInteger(anchor.messages) &&
    typeof anchor.digest === 'string' &&
    typeof anchor.tools === 'string' &&
    typeof anchor.reported === 'number' &&
    anchor.reported > 0
    ? (value as PersistedAnchor)
    : undefined;
}

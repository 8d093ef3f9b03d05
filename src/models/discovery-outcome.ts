/**
 * @module
 * What live discovery and the zero-cost probe come to: the limits a server stated, or why it could
 * not be asked.
 */
import type { DiscoveredLimits } from './discovery-probe.js';

/** Why discovery found nothing at a server it could not talk to. */
export interface DiscoveryError {
  /** `unreachable`: no endpoint could be connected to; `timeout`: none answered within the deadline. */
  code: 'unreachable' | 'timeout';
  /** What is wrong and what to do, naming the server. */
  message: string;
  /** The server root that was asked. */
  baseUrl: string;
}

/** What discovery came to: the limits found, or why the server could not be asked. */
export interface DiscoveryOutcome {
  found?: DiscoveredLimits;
  /** Present when the server could not be reached at all; a server that answers but is not one Spillway knows is no error. */
  error?: DiscoveryError;
}

/** What the probe came to. */
export interface ProbeOutcome {
  /**
   * `stated`: rejected, naming a limit; `rejected`: rejected without a figure Spillway can read;
   * `accepted`: the server started a reply (it does not validate; the stream was cut at once);
   * `failed`: no answer (unreachable, timed out).
   */
  result: 'stated' | 'rejected' | 'accepted' | 'failed';
  /** The window the rejection stated. */
  contextLength?: number;
  /** The output cap the rejection stated. */
  outputCap?: number;
  status?: number;
  /** The overflow row that read the rejection. */
  pattern?: string;
  /** Why the probe failed. */
  message?: string;
}

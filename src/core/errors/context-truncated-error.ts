import { SpillwayError } from './spillway-error.js';

/** The figures that made a request impossible to fit. */
export interface ContextTruncatedDetails {
  /** Estimated prompt tokens of the smallest request Spillway could build. */
  estimate: number;
  /** Prompt tokens the window allows after the reserve and safety margin. */
  budget: number;
  /** The model's context window in tokens. */
  window: number;
  /** Tokens reserved for the reply. */
  reserve: number;
  /** Tokens taken by tool schemas alone. */
  schemaTokens?: number;
}

/**
 * Thrown when even the head (system prompt and first user message) plus the newest turn do not fit.
 * No request was sent. Not retryable: the same request fails the same way.
 */
export class ContextTruncatedError extends SpillwayError {
  readonly details: ContextTruncatedDetails;

  constructor(message: string, details: ContextTruncatedDetails, options: { cause?: unknown } = {}) {
    super('context_truncated', message, { ...options, data: { ...details }, retryable: false });
    this.name = 'ContextTruncatedError';
    this.details = details;
  }

  static override isInstance(value: unknown): value is ContextTruncatedError {
    return SpillwayError.isInstance(value) && value.code === 'context_truncated';
  }
}

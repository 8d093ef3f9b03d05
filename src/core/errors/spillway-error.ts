/**
 * @module
 * The one root error of Spillway. Every error the library throws or returns carries a `code` from
 * {@link SpillwayErrorCode}, readonly data fields, an optional `cause`, and serializes with `toJSON()`.
 */

const MARKER = Symbol.for('spillway.error');

/** Every error code Spillway uses. Codes are stable: callers and the command line switch on them. */
export type SpillwayErrorCode =
  | 'invalid_transcript'
  | 'invalid_request'
  | 'invalid_config'
  | 'invalid_argument'
  | 'context_truncated'
  | 'provider_error'
  | 'compaction_failed'
  | 'aborted'
  | 'missing_dependency'
  | 'internal';

/** Options shared by every Spillway error. */
export interface SpillwayErrorOptions {
  /** The error that led to this one. */
  cause?: unknown;
  /** Structured facts a caller can act on (indices, ids, figures). */
  data?: Readonly<Record<string, unknown>>;
  /** Whether repeating the same operation unchanged could succeed. */
  retryable?: boolean;
}

/**
 * The root error. Use {@link SpillwayError.isInstance} rather than `instanceof`, which fails when two
 * copies of the package are loaded.
 *
 * @example
 * try { manager.fit(request); } catch (error) {
 *   if (SpillwayError.isInstance(error) && error.code === 'context_truncated') showNotice(error.message);
 * }
 */
export class SpillwayError extends Error {
  readonly [MARKER] = true;
  readonly code: SpillwayErrorCode;
  readonly data: Readonly<Record<string, unknown>>;
  readonly retryable: boolean;

  constructor(
    code: SpillwayErrorCode,
    message: string,
    { cause, data = {}, retryable = false }: SpillwayErrorOptions = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'SpillwayError';
    this.code = code;
    this.data = data;
    this.retryable = retryable;
  }

  /** True for any Spillway error, from any copy of the package. */
  static isInstance(value: unknown): value is SpillwayError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** A plain object for logs and wire formats: `{ code, message, ...data }`. */
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.data };
  }
}

/**
 * @module
 * The one root error of Headroom. Every error the library throws or returns carries a `code` from
 * {@link HeadroomErrorCode}, readonly data fields, an optional `cause`, and serializes with `toJSON()`.
 */

const MARKER = Symbol.for('headroom.error');

/** Every error code Headroom uses. Codes are stable: callers and the command line switch on them. */
export type HeadroomErrorCode =
  | 'invalid_transcript'
  | 'invalid_request'
  | 'invalid_config'
  | 'invalid_argument'
  | 'context_truncated'
  | 'provider_error'
  | 'compaction_failed'
  | 'aborted'
  | 'internal';

/** Options shared by every Headroom error. */
export interface HeadroomErrorOptions {
  /** The error that led to this one. */
  cause?: unknown;
  /** Structured facts a caller can act on (indices, ids, figures). */
  data?: Readonly<Record<string, unknown>>;
  /** Whether repeating the same operation unchanged could succeed. */
  retryable?: boolean;
}

/**
 * The root error. Use {@link HeadroomError.isInstance} rather than `instanceof`, which fails when two
 * copies of the package are loaded.
 *
 * @example
 * try { manager.fit(request); } catch (error) {
 *   if (HeadroomError.isInstance(error) && error.code === 'context_truncated') showNotice(error.message);
 * }
 */
export class HeadroomError extends Error {
  readonly [MARKER] = true;
  readonly code: HeadroomErrorCode;
  readonly data: Readonly<Record<string, unknown>>;
  readonly retryable: boolean;

  constructor(
    code: HeadroomErrorCode,
    message: string,
    { cause, data = {}, retryable = false }: HeadroomErrorOptions = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'HeadroomError';
    this.code = code;
    this.data = data;
    this.retryable = retryable;
  }

  /** True for any Headroom error, from any copy of the package. */
  static isInstance(value: unknown): value is HeadroomError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** A plain object for logs and wire formats: `{ code, message, ...data }`. */
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.data };
  }
}

import { classifyOverflow, type OverflowInfo, type ProviderAnswer, SpillwayError } from '../core/index.js';

/** The catalog's classification of an answer, for a client used without a driver. */
function catalogClassify({ status, body }: ProviderAnswer): OverflowInfo {
  return classifyOverflow({ ...(status === undefined ? {} : { status }), body: body ?? '' });
}

/** How a send failed. */
export type ProviderFailure =
  /** The provider answered with an error status. */
  | 'http'
  /** The provider sent an error inside a 200 stream. */
  | 'stream_error'
  /** The stream ended before the reply finished. */
  | 'stream_interrupted'
  /**
   * The stream sent nothing within its first-chunk or idle timeout: the server or the connection is
   * stuck, and sending again would wait as long again.
   */
  | 'stream_timeout'
  /** The request never got an answer (refused, reset, DNS, timeout). */
  | 'connection'
  /** The caller aborted. */
  | 'aborted'
  /** The provider answered with something that is not the format it speaks. */
  | 'malformed_response';

/** Headers never copied into errors or logs. */
const SECRET_HEADERS = /^(authorization|x-api-key|api-key|cookie|set-cookie|proxy-authorization)$/i;

/** Headers without credentials, names lowercased. */
export function safeHeaders(headers: Headers | Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) if (!SECRET_HEADERS.test(name)) out[name.toLowerCase()] = value;
  return out;
}

/** Details of a {@link ProviderError}. */
export interface ProviderErrorDetails {
  failure: ProviderFailure;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** How an error answer is classified: the sender's (see `SendOptions.classify`), else the catalog. */
  classify?: (answer: ProviderAnswer) => OverflowInfo;
}

/**
 * A failed provider send: status, headers (credentials removed), body, and what the failure means
 * for the next request (`overflow`). An overflow is never retryable unchanged, whatever its status.
 */
export class ProviderError extends SpillwayError {
  readonly failure: ProviderFailure;
  readonly status: number | undefined;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly overflow: OverflowInfo;

  constructor(message: string, details: ProviderErrorDetails, options: { cause?: unknown } = {}) {
    const overflow =
      details.failure === 'http' || details.failure === 'stream_error'
        ? (details.classify ?? catalogClassify)({
            ...(details.status === undefined ? {} : { status: details.status }),
            body: details.body ?? '',
          })
        : ({ kind: 'none', pattern: 'no-match' } satisfies OverflowInfo);
    super(details.failure === 'aborted' ? 'aborted' : 'provider_error', message, {
      ...options,
      data: { failure: details.failure, status: details.status, overflow: overflow.kind },
      retryable:
        overflow.kind === 'none' && details.failure !== 'aborted' && details.failure !== 'malformed_response',
    });
    this.name = 'ProviderError';
    this.failure = details.failure;
    this.status = details.status;
    this.headers = details.headers ?? {};
    this.body = details.body;
    this.overflow = overflow;
  }

  static override isInstance(value: unknown): value is ProviderError {
    return SpillwayError.isInstance(value) && 'failure' in value && 'overflow' in value;
  }
}

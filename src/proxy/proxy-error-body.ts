/**
 * @module
 * The error bodies the proxy itself answers with, in the wire format of the route the client called:
 * OpenAI's `{"error":{message,type,param,code}}` for Chat Completions and everything else,
 * Anthropic's `{"type":"error","error":{type,message}}` for `/v1/messages`, Google's
 * `{"error":{code,message,status}}` for the Gemini API.
 */
import type { RequestFormat } from '../core/index.js';

/** What went wrong, in OpenAI's terms. */
export interface ProxyErrorInfo {
  status: number;
  message: string;
  /** OpenAI `type`: `invalid_request_error`, `upstream_error`, … */
  type: string;
  param?: string | null;
  code?: string | null;
  /** More facts for the client, as fields of the error object (`timeout`, `config_key`, …). */
  details?: Record<string, string | number>;
}

/** Anthropic's error type for an HTTP status. */
function anthropicType(status: number, type: string): string {
  if (status === 413) return 'request_too_large';
  if (status === 504) return 'timeout_error';
  if (status === 404) return 'not_found_error';
  if (status >= 500) return 'api_error';
  return type === 'invalid_request_error' ? 'invalid_request_error' : 'api_error';
}

/** Google's canonical status name for an HTTP status (google.rpc.Code). */
function googleStatus(status: number): string {
  if (status === 400 || status === 413) return 'INVALID_ARGUMENT';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 504) return 'DEADLINE_EXCEEDED';
  if (status === 502 || status === 503) return 'UNAVAILABLE';
  return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
}

/**
 * The JSON text of a proxy error in a wire format.
 *
 * @example
 * proxyErrorBody({ status: 400, message: 'the body is not JSON', type: 'invalid_request_error' }, 'openai');
 * // '{"error":{"message":"the body is not JSON","type":"invalid_request_error","param":null,"code":null}}'
 */
export function proxyErrorBody(error: ProxyErrorInfo, format: RequestFormat = 'openai'): string {
  if (format === 'gemini')
    return JSON.stringify({
      error: {
        code: error.status,
        message: error.message,
        status: googleStatus(error.status),
        ...error.details,
      },
    });
  if (format === 'anthropic')
    return JSON.stringify({
      type: 'error',
      error: { type: anthropicType(error.status, error.type), message: error.message, ...error.details },
    });
  return JSON.stringify({
    error: {
      message: error.message,
      type: error.type,
      param: error.param ?? null,
      code: error.code ?? null,
      ...error.details,
    },
  });
}

import { type ModelClient, ProviderError } from '../providers/index.js';

/** A provider error made again from another, with its own message or overflow classification. */
class CopiedProviderError extends ProviderError {
  constructor(original: ProviderError, message: string, overflow: ProviderError['overflow'] | undefined) {
    super(
      message,
      {
        failure: original.failure,
        ...(original.status === undefined ? {} : { status: original.status }),
        headers: original.headers,
        ...(original.body === undefined ? {} : { body: original.body }),
      },
      { cause: original },
    );
    if (overflow === undefined) return;
    const self = this as { overflow: ProviderError['overflow']; data: Record<string, unknown> };
    self.overflow = overflow;
    self.data = { ...this.data, overflow: overflow.kind };
  }
}

/**
 * `original` with another message (a hint the user can act on) or another overflow classification
 * (the user's rows), everything else kept and `original` as its cause.
 *
 * @example
 * throw copyProviderError(error, { message: `${error.message}; use --format anthropic` });
 */
export function copyProviderError(
  original: ProviderError,
  { message = original.message, overflow }: { message?: string; overflow?: ProviderError['overflow'] },
): ProviderError {
  return new CopiedProviderError(original, message, overflow);
}

/**
 * A client whose provider errors go through `rewrite`: what it returns is thrown instead (the error
 * itself when it returns `undefined`); other errors and replies pass unchanged.
 *
 * @example
 * const client = rewriteProviderErrors(inner, (error) => error.status === 404 ? copyProviderError(error, { message }) : undefined);
 */
export function rewriteProviderErrors(
  client: ModelClient,
  rewrite: (error: ProviderError) => ProviderError | undefined,
): ModelClient {
  return {
    format: client.format,
    baseUrl: client.baseUrl,
    async send(request, options) {
      try {
        return await client.send(request, options);
      } catch (error) {
        if (!ProviderError.isInstance(error)) throw error;
        throw rewrite(error) ?? error;
      }
    },
  };
}

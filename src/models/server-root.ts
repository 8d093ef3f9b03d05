import { SpillwayError } from '../core/index.js';

/** The server root a base URL points at: no trailing slash, no `/v1`. */
export function serverRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new SpillwayError(
      'invalid_argument',
      `base URL ${JSON.stringify(baseUrl)} is not a URL; give one like http://localhost:8000/v1`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SpillwayError('invalid_argument', `base URL ${baseUrl} must be http: or https:`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.origin}${path}`;
}

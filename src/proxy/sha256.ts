/**
 * @module
 * SHA-256 of a text, the proxy's hash for keys and remembered prefixes.
 */
import * as crypto from 'node:crypto';

type OneShot = (algorithm: string, data: string, encoding: 'hex' | 'base64') => string;

/**
 * `crypto.hash` (Node 20.12 and later) hashes in one call; a `Hash` object per text, which older
 * Node 20 releases need, costs several microseconds more, and the proxy hashes a few texts a request.
 */
const oneShot = (crypto as { hash?: OneShot }).hash;

/**
 * SHA-256 of a text's UTF-8, as hex (or base64).
 *
 * @example
 * sha256('abc'); // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export function sha256(text: string, encoding: 'hex' | 'base64' = 'hex'): string {
  return oneShot
    ? oneShot('sha256', text, encoding)
    : crypto.createHash('sha256').update(text).digest(encoding);
}

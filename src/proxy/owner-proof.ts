/**
 * @module
 * How a proxy proves it holds a secret without sending it: the asker sends a fresh random
 * challenge, the proxy answers HMAC-SHA256(secret, challenge). A listener that squats on the port
 * learns nothing it could replay, and the asker sends nothing of value (no API key) before the
 * proof checks out.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The request header that carries the challenge. */
export const OWNER_CHALLENGE_HEADER = 'x-spillway-challenge';
/** The response header that carries the proof. */
export const OWNER_PROOF_HEADER = 'x-spillway-proof';

/** Challenges are 16 to 128 characters of base64url or hex. */
const CHALLENGE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The proof of `secret` for `challenge` (hex), or `undefined` for a challenge that is no nonce.
 *
 * @example
 * ownerProof('s3cret', 'q1w2e3r4t5y6u7i8o9p0'); // 64 hex digits
 */
export function ownerProof(secret: string, challenge: string): string | undefined {
  if (!CHALLENGE.test(challenge)) return undefined;
  return createHmac('sha256', secret).update(challenge).digest('hex');
}

/** Whether `proof` is the proof of `secret` for `challenge`, compared in constant time. */
export function checkOwnerProof(secret: string, challenge: string, proof: string | undefined): boolean {
  const expected = ownerProof(secret, challenge);
  if (expected === undefined || proof === undefined || proof.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(proof), Buffer.from(expected));
}

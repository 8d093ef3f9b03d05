import { describe, expect, it } from 'vitest';
import { checkOwnerProof, ownerProof } from './owner-proof.js';

describe('ownerProof', () => {
  it('proves the secret for a challenge, and only that secret and that challenge pass', () => {
    const challenge = 'Zm9vYmFyYmF6cXV4MTIzNDU2';
    const proof = ownerProof('secret-a', challenge);
    expect(proof).toMatch(/^[0-9a-f]{64}$/);
    expect(checkOwnerProof('secret-a', challenge, proof)).toBe(true);
    expect(checkOwnerProof('secret-b', challenge, proof)).toBe(false);
    expect(checkOwnerProof('secret-a', `${challenge}x`, proof)).toBe(false);
    expect(checkOwnerProof('secret-a', challenge, undefined)).toBe(false);
    expect(checkOwnerProof('secret-a', challenge, 'short')).toBe(false);
  });

  it('answers no challenge that is not a nonce (too short, or other characters)', () => {
    expect(ownerProof('secret', 'abc')).toBeUndefined();
    expect(ownerProof('secret', 'a'.repeat(16).replace('a', '/'))).toBeUndefined();
  });
});

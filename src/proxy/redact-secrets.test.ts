import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { credentialIdentity, redactSecrets, secretsOf } from './redact-secrets.js';

const hashOf = (material: string) => createHash('sha256').update(material).digest('hex');

describe('credentialIdentity', () => {
  it('is a hash of the identity headers, the same for the same client whoever came between', () => {
    const a = { authorization: 'Bearer sk-a' };
    const b = { 'x-api-key': ' sk-b ', cookie: 'not an identity' };
    expect(credentialIdentity(a)).toBe(hashOf('authorization:Bearer sk-a\n'));
    expect(credentialIdentity(b)).toBe(hashOf('x-api-key:sk-b\n'));
    expect(credentialIdentity(a)).toBe(hashOf('authorization:Bearer sk-a\n'));
    expect(credentialIdentity({ ...a, 'x-goog-api-key': 'g' })).toBe(
      hashOf('authorization:Bearer sk-a\nx-goog-api-key:g\n'),
    );
    expect(credentialIdentity({ authorization: '  ' })).toBeUndefined();
    expect(credentialIdentity({})).toBeUndefined();
  });
});

describe('redactSecrets', () => {
  it('scrubs whole credential values and the token after a scheme, longest first', () => {
    const secrets = secretsOf({ authorization: 'Bearer sk-123456', 'x-api-key': 'key-9999' });
    expect(redactSecrets('bad Bearer sk-123456 and sk-123456 and key-9999', secrets)).toBe(
      'bad [redacted] and [redacted] and [redacted]',
    );
  });
});

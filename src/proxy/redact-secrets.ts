/**
 * @module
 * Credentials never leave the proxy except in the request they came with: every text the proxy logs
 * or answers with is scrubbed of the values of the client's credential headers.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { sha256 } from './sha256.js';

/** Headers whose values are credentials. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'x-api-key',
  'api-key',
  'proxy-authorization',
  'cookie',
  'x-goog-api-key',
];

/** The secret values a request carries: whole header values and the token after a scheme. */
export function secretsOf(headers: IncomingHttpHeaders): string[] {
  const secrets: string[] = [];
  for (const name of CREDENTIAL_HEADERS) {
    const raw = headers[name];
    for (const value of Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]) {
      const trimmed = value.trim();
      if (trimmed.length >= 4) secrets.push(trimmed);
      const token = /^\S+\s+(\S{4,})$/.exec(trimmed)?.[1];
      if (token) secrets.push(token);
    }
  }
  return secrets.sort((left, right) => right.length - left.length);
}

/**
 * `text` with every secret replaced by `[redacted]`.
 *
 * @example
 * redactSecrets('upstream said: bad key sk-123456', ['sk-123456']); // 'upstream said: bad key [redacted]'
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  return out;
}

/** The credential headers only, for discovery probes sent on the client's behalf. */
export function credentialHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CREDENTIAL_HEADERS) {
    if (name === 'cookie' || name === 'proxy-authorization') continue;
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** Headers that say who the client is to the upstream (what it is billed and authorized as). */
const IDENTITY_HEADERS: readonly string[] = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key'];

/**
 * Who the client is, as a SHA-256 of its credential headers (never the secret itself), or
 * `undefined` when it sends none. Conversations are keyed with it, so two clients with different
 * keys never share stored state, however alike their conversations are.
 *
 * @example
 * credentialIdentity({ authorization: 'Bearer sk-a' }) !== credentialIdentity({ authorization: 'Bearer sk-b' }); // true
 */
export function credentialIdentity(headers: IncomingHttpHeaders): string | undefined {
  let material = '';
  for (const name of IDENTITY_HEADERS) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw.join('\n') : raw;
    if (value === undefined || value.trim() === '') continue;
    material += `${name}:${value.trim()}\n`;
  }
  if (material === '') return undefined;
  // The same client sends the same headers request after request: its identity is hashed once.
  if (material !== lastIdentity.material) lastIdentity = { material, identity: sha256(material) };
  return lastIdentity.identity;
}

/** The last credential headers hashed and their identity (one, so no more secrets stay in memory). */
let lastIdentity = { material: '', identity: '' };

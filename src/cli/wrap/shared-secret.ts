/**
 * @module
 * The secret a user's proxies share, so that `spillway wrap --port N` can reuse a proxy the same
 * user started (`spillway serve --secret-file`) and nobody else's: a file of random bytes that only
 * its owner can read. A file another user owns, or that others may read or write, is refused.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { SpillwayError } from '../../core/index.js';

/** Where the shared secret lives: `SPILLWAY_SECRET_FILE`, else `~/.config/spillway/proxy-secret`. */
export function defaultSecretPath(env: NodeJS.ProcessEnv): string {
  if (env.SPILLWAY_SECRET_FILE) return env.SPILLWAY_SECRET_FILE;
  const config = env.XDG_CONFIG_HOME ?? join(env.HOME ?? homedir(), '.config');
  return join(config, 'spillway', 'proxy-secret');
}

/** A fresh secret: 32 random bytes, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Why `path` may not hold a shared secret, or `undefined` when it may (owned by us, owner-only). */
function unsafeBecause(path: string): string | undefined {
  const stat = statSync(path);
  if (!stat.isFile()) return 'it is not a regular file';
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return 'another user owns it';
  if ((stat.mode & 0o077) !== 0)
    return `others may read or write it (mode ${(stat.mode & 0o777).toString(8)}); chmod 600 it`;
  return undefined;
}

/**
 * The shared secret in `path`; `undefined` when there is no such file. A file that is not safe to
 * trust is an `invalid_config` error that says why.
 */
export function readSharedSecret(path: string): string | undefined {
  let text: string;
  try {
    const problem = unsafeBecause(path);
    if (problem !== undefined)
      throw new SpillwayError('invalid_config', `the secret file ${path} cannot be trusted: ${problem}`);
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (text.length < 16)
    throw new SpillwayError(
      'invalid_config',
      `the secret file ${path} holds fewer than 16 characters; delete it to make a new one`,
    );
  return text;
}

/** The shared secret in `path`, made (owner-only, in an owner-only directory) when there is none. */
export function loadOrCreateSharedSecret(path: string): string {
  const existing = readSharedSecret(path);
  if (existing !== undefined) return existing;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const secret = newSecret();
  // `wx`: never through a file that appeared since the read; 0600 from the start.
  const descriptor = openSync(path, 'wx', 0o600);
  try {
    writeSync(descriptor, `${secret}\n`);
  } finally {
    closeSync(descriptor);
  }
  return secret;
}

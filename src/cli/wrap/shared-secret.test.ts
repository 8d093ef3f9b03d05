import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSecretPath, loadOrCreateSharedSecret, readSharedSecret } from './shared-secret.js';

describe('the shared secret file', () => {
  it('is made owner-only when missing, then read back the same', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'spillway-secret-')), 'nested', 'proxy-secret');
    expect(readSharedSecret(path)).toBeUndefined();
    const secret = loadOrCreateSharedSecret(path);
    expect(secret.length).toBeGreaterThanOrEqual(40);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSharedSecret(path)).toBe(secret);
    expect(readSharedSecret(path)).toBe(secret);
  });

  it('is refused when others may read it, or when it holds too little', () => {
    const directory = mkdtempSync(join(tmpdir(), 'spillway-secret-'));
    const open = join(directory, 'open');
    writeFileSync(open, 'a-secret-long-enough-to-count');
    chmodSync(open, 0o644);
    expect(() => readSharedSecret(open)).toThrow(/others may read or write it.*chmod 600/);
    const short = join(directory, 'short');
    writeFileSync(short, 'abc');
    chmodSync(short, 0o600);
    expect(() => readSharedSecret(short)).toThrow(/fewer than 16/);
  });

  it('lives where SPILLWAY_SECRET_FILE says, else under the config directory', () => {
    expect(defaultSecretPath({ SPILLWAY_SECRET_FILE: '/x/s' })).toBe('/x/s');
    expect(defaultSecretPath({ XDG_CONFIG_HOME: '/c' })).toBe('/c/spillway/proxy-secret');
    expect(defaultSecretPath({ HOME: '/h' })).toBe('/h/.config/spillway/proxy-secret');
  });
});

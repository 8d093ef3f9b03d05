import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { BUSY_RETRIES, isBusyError, retryBusy, retryBusyAsync, writeTransaction } from './sqlite-busy.js';

const directory = mkdtempSync(join(tmpdir(), 'spillway-busy-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function busy(code = 'SQLITE_BUSY'): Error {
  return Object.assign(new Error('database is locked'), { code });
}

describe('retryBusy', () => {
  it('retries busy failures until the work goes through', () => {
    let calls = 0;
    const result = retryBusy(() => {
      calls++;
      if (calls < 3) throw busy(calls === 1 ? 'SQLITE_BUSY_SNAPSHOT' : 'SQLITE_BUSY');
      return 'written';
    });
    expect(result).toBe('written');
    expect(calls).toBe(3);
  });

  it('gives up after a bounded number of retries, and never retries other errors', () => {
    let calls = 0;
    expect(() =>
      retryBusy(() => {
        calls++;
        throw busy();
      }),
    ).toThrow('database is locked');
    expect(calls).toBe(BUSY_RETRIES + 1);
    calls = 0;
    expect(() =>
      retryBusy(() => {
        calls++;
        throw Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT' });
      }),
    ).toThrow('constraint');
    expect(calls).toBe(1);
    expect(isBusyError(busy('SQLITE_LOCKED'))).toBe(true);
    expect(isBusyError(new TypeError('x'))).toBe(false);
  });
});

describe('retryBusyAsync', () => {
  it('settles at once without a busy failure, and rejects (never throws) whatever fails', async () => {
    let calls = 0;
    const done = retryBusyAsync(() => {
      calls++;
      return 'read';
    });
    expect(calls).toBe(1);
    await expect(done).resolves.toBe('read');
    const failed = retryBusyAsync(() => {
      calls++;
      throw Object.assign(new Error('constraint'), { code: 'SQLITE_CONSTRAINT' });
    });
    await expect(failed).rejects.toThrow('constraint');
    expect(calls).toBe(2);
  });

  it('retries busy failures after a pause, at most BUSY_RETRIES times', async () => {
    let calls = 0;
    await expect(
      retryBusyAsync(() => {
        calls++;
        if (calls < 3) throw busy();
        return 'written';
      }),
    ).resolves.toBe('written');
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      retryBusyAsync(() => {
        calls++;
        throw busy(calls === 1 ? 'SQLITE_BUSY' : 'SQLITE_LOCKED');
      }),
    ).rejects.toThrow('database is locked');
    expect(calls).toBe(BUSY_RETRIES + 1);
    calls = 0;
    await expect(
      retryBusyAsync(() => {
        calls++;
        if (calls === 1) throw busy();
        throw new TypeError('not busy');
      }),
    ).rejects.toThrow('not busy');
    expect(calls).toBe(2);
  });
});

describe('writeTransaction', () => {
  it('takes the write lock at BEGIN, so a writer that read first cannot be refused its upgrade', () => {
    const path = join(directory, 'upgrade.db');
    const first = new Database(path, { timeout: 50 });
    first.pragma('journal_mode = WAL');
    first.exec('CREATE TABLE t (n INTEGER)');
    const second = new Database(path, { timeout: 50 });
    // A deferred transaction in `second` reads, `first` commits a write, then `second` tries to write:
    // SQLite refuses the upgrade at once (SQLITE_BUSY_SNAPSHOT), whatever the timeout.
    const deferred = second.transaction(() => {
      second.prepare('SELECT COUNT(*) FROM t').get();
      first.prepare('INSERT INTO t VALUES (1)').run();
      second.prepare('INSERT INTO t VALUES (2)').run();
    });
    expect(() => deferred()).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^SQLITE_BUSY/) }),
    );
    // With BEGIN IMMEDIATE the lock is taken before the read; the other writer waits instead.
    writeTransaction(second, () => {
      second.prepare('SELECT COUNT(*) FROM t').get();
      second.prepare('INSERT INTO t VALUES (3)').run();
    });
    expect(first.prepare('SELECT n FROM t ORDER BY n').pluck().all()).toEqual([1, 3]);
    first.close();
    second.close();
  });
});

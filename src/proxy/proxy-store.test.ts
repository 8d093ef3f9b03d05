import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCalibration, observeCalibration } from '../core/index.js';
import { LEARNED_LIMITS_TTL_SECONDS } from './learned-limits-record.js';
import { openProxyStore } from './open-proxy-store.js';
import { CALIBRATION_TTL_SECONDS, PROXY_KEY_PREFIX, ProxyState, upstreamScope } from './proxy-state.js';
import { createMemoryProxyStore, type ProxyStore } from './proxy-store.js';
import {
  createSqliteProxyStore,
  MAX_CACHED_CHARS,
  MAX_CACHED_ROWS,
  SqliteRowCache,
} from './sqlite-proxy-store.js';

const dir = mkdtempSync(join(tmpdir(), 'spillway-proxy-store-'));

const stores: [string, (now: () => number) => ProxyStore][] = [
  ['memory', (now) => createMemoryProxyStore({ now })],
  ['sqlite', (now) => createSqliteProxyStore({ path: join(dir, `${Math.random()}.db`), now })],
];

describe.each(stores)('the %s proxy store', (_name, create) => {
  it('gets what was set, forgets what was deleted, and expires values with a ttl', async () => {
    let clock = 1_000;
    const store = create(() => clock);
    expect(await store.get('a')).toBeUndefined();
    await store.set('a', '{"x":1}');
    await store.set('b', 'two', { ttlSeconds: 10 });
    expect(await store.get('a')).toBe('{"x":1}');
    expect(await store.get('b')).toBe('two');
    clock += 10_000;
    expect(await store.get('b')).toBeUndefined();
    await store.set('a', 'replaced');
    expect(await store.get('a')).toBe('replaced');
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
    await store.close();
  });

  it('reads and writes several keys at once, as one at a time would', async () => {
    let clock = 1_000;
    const store = create(() => clock);
    await store.setMany?.([
      { key: 'a', value: 'one' },
      { key: 'b', value: 'two', ttlSeconds: 10 },
    ]);
    expect(await store.getMany?.(['b', 'missing', 'a'])).toEqual(['two', undefined, 'one']);
    clock += 10_000;
    expect(await store.getMany?.(['a', 'b'])).toEqual(['one', undefined]);
    expect(await store.get('a')).toBe('one');
    await store.close();
  });
});

describe('the memory proxy store', () => {
  it('drops the least recently used entries past its caps', async () => {
    const store = createMemoryProxyStore({ maxEntries: 3, sweepIntervalMs: 0 });
    for (const key of ['a', 'b', 'c']) await store.set(key, 'v');
    await store.get('a');
    await store.set('d', 'v');
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toBe('v');
    expect(store.size).toBe(3);
    const small = createMemoryProxyStore({ maxChars: 1_000, sweepIntervalMs: 0 });
    for (let index = 0; index < 100; index++) await small.set(`key-${index}`, 'x'.repeat(100));
    expect(small.chars).toBeLessThanOrEqual(1_000);
    expect(await small.get('key-99')).toBe('x'.repeat(100));
    await small.set('huge', 'x'.repeat(2_000));
    expect(await small.get('huge')).toBeUndefined();
    await Promise.all([store.close(), small.close()]);
  });

  it('sweeps expired entries nobody reads again', async () => {
    let clock = 0;
    const store = createMemoryProxyStore({ now: () => clock, sweepIntervalMs: 0 });
    for (let index = 0; index < 50; index++) await store.set(`k${index}`, 'v', { ttlSeconds: 10 });
    await store.set('kept', 'v');
    clock = 10_000;
    expect(store.sweep()).toBe(50);
    expect(store.size).toBe(1);
    await store.close();
  });
});

describe('the SQLite proxy store', () => {
  it('keeps values across reopening the file', async () => {
    const path = join(dir, 'reopen.db');
    const first = createSqliteProxyStore({ path });
    await first.set('k', 'v');
    await first.close();
    const second = createSqliteProxyStore({ path });
    expect(await second.get('k')).toBe('v');
    await second.close();
  });

  it('reads what another connection to the file committed since its last read, and its own writes', async () => {
    let clock = 1_000;
    const path = join(dir, 'shared.db');
    const first = createSqliteProxyStore({ path, now: () => clock });
    const second = createSqliteProxyStore({ path, now: () => clock });
    expect(await first.getMany?.(['a', 'b'])).toEqual([undefined, undefined]);
    await second.setMany?.([
      { key: 'a', value: 'from second' },
      { key: 'b', value: 'short-lived', ttlSeconds: 5 },
    ]);
    expect(await first.getMany?.(['a', 'b'])).toEqual(['from second', 'short-lived']);
    await first.set('a', 'from first');
    expect(await first.get('a')).toBe('from first');
    expect(await second.get('a')).toBe('from first');
    await second.delete('a');
    expect(await first.get('a')).toBeUndefined();
    clock += 5_000;
    expect(await first.get('b')).toBeUndefined();
    await Promise.all([first.close(), second.close()]);
  });

  it('keeps at most its caps of rows in memory, oldest dropped first', () => {
    const rows = new SqliteRowCache();
    rows.follow(1);
    for (let index = 0; index < MAX_CACHED_ROWS + 10; index++)
      rows.set(`k${index}`, { value: 'v', expiresAt: null });
    expect(rows.size).toBe(MAX_CACHED_ROWS);
    expect(rows.get('k0')).toBeUndefined();
    expect(rows.get(`k${MAX_CACHED_ROWS + 9}`)?.value).toBe('v');
    const large = 'x'.repeat(MAX_CACHED_CHARS / 4);
    for (let index = 0; index < 5; index++) rows.set(`large${index}`, { value: large, expiresAt: null });
    expect(rows.get('large0')).toBeUndefined();
    expect(rows.get('large4')?.value).toBe(large);
    rows.set('huge', { value: 'x'.repeat(MAX_CACHED_CHARS), expiresAt: null });
    expect(rows.get('huge')).toBeUndefined();
    rows.follow(1);
    expect(rows.get('large4')).toBeDefined();
    rows.follow(2);
    expect(rows.size).toBe(0);
  });

  it('names the path it cannot open', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(() => createSqliteProxyStore({ path: join(file, 'nope.db') })).toThrow(
      /cannot open the proxy store at .*a-file\/nope\.db: /,
    );
  });
});

describe('openProxyStore', () => {
  it('opens the store a spec names and rejects others', async () => {
    const memory = openProxyStore('memory');
    expect(memory.kind).toBe('memory');
    const sqlite = openProxyStore(`sqlite:${join(dir, 'spec.db')}`);
    expect(sqlite.kind).toBe('sqlite');
    await Promise.all([memory.close(), sqlite.close()]);
    expect(() => openProxyStore('mongodb://x')).toThrow(/unknown store "mongodb:\/\/x"; use memory, sqlite/);
    expect(() => openProxyStore('sqlite:')).toThrow(/sqlite:PATH needs a path/);
  });
});

describe('ProxyState', () => {
  it('merges learned limits per credential and keeps the newest calibration', async () => {
    const state = new ProxyState({ store: createMemoryProxyStore() });
    await state.recordLearnedLimits('m', { credential: 'a', contextLength: 21_000 });
    await state.recordLearnedLimits('m', { credential: 'a', outputCap: 4_096 });
    expect(await state.learnedLimits('m', 'a')).toEqual({ contextLength: 21_000, outputCap: 4_096 });
    expect(await state.learnedLimits('m', 'b')).toEqual({});
    const one = observeCalibration(createCalibration(), { reported: 600, raw: 1_000 });
    await state.saveCalibration('m', one);
    expect(await state.calibration('m')).toEqual(one);
    const two = observeCalibration(one, { reported: 500, raw: 1_000 });
    await state.saveCalibration('m', two);
    expect(await state.calibration('m')).toEqual(two);
    await state.saveConversation('c', { driver: { manager: { compression: { entries: {} } } } });
    expect(await state.conversation('c')).toEqual({ driver: { manager: { compression: { entries: {} } } } });
  });

  it('reads and saves the state of a request at once, seeing what another instance wrote in between', async () => {
    const store = createMemoryProxyStore();
    const [mine, theirs] = [new ProxyState({ store }), new ProxyState({ store })];
    const one = observeCalibration(createCalibration(), { reported: 600, raw: 1_000 });
    const conversation = { driver: { manager: { compression: { entries: {} } } } };
    await mine.recordLearnedLimits('m', { credential: 'a', contextLength: 21_000 });
    await mine.saveRequestState({
      conversation: { key: 'c', state: conversation },
      calibration: { model: 'm', calibration: one },
    });
    const read = await mine.requestState({ model: 'm', credential: 'a', key: 'c' });
    expect(read).toEqual({ learned: { contextLength: 21_000 }, calibration: one, conversation });
    expect((await mine.requestState({ model: 'm', credential: 'a', key: 'c' })).calibration).toBe(
      read.calibration,
    );
    const two = observeCalibration(one, { reported: 500, raw: 1_000 });
    await theirs.saveRequestState({ calibration: { model: 'm', calibration: two } });
    expect((await mine.requestState({ model: 'm', key: 'c' })).calibration).toEqual(two);
    expect(await mine.requestState({ model: undefined, key: 'other' })).toEqual({
      learned: {},
      conversation: {},
    });
  });

  it('serves without state when the store fails, and says so', async () => {
    const failures: string[] = [];
    const broken: ProxyStore = {
      kind: 'redis',
      get: () => Promise.reject(new Error('connection refused')),
      set: () => Promise.reject(new Error('connection refused')),
      delete: () => Promise.reject(new Error('connection refused')),
      close: () => Promise.resolve(),
    };
    const state = new ProxyState({ store: broken, onError: (_error, operation) => failures.push(operation) });
    expect(await state.learnedLimits('m')).toEqual({});
    expect(await state.calibration('m')).toBeUndefined();
    await state.saveConversation('c', {});
    expect(failures).toEqual(['read limits', 'read calibration', 'write conversation']);
  });

  it('ignores values that are not what it wrote', async () => {
    const store = createMemoryProxyStore();
    await store.set(`${PROXY_KEY_PREFIX}calibration:u:m`, '{"factor":"high"}');
    await store.set(`${PROXY_KEY_PREFIX}limits:u:m`, 'not json');
    await store.set(`${PROXY_KEY_PREFIX}conversation:u:c`, '{"driver":{"manager":"compression"}}');
    await store.set(`${PROXY_KEY_PREFIX}conversation:u:d`, '{"manager":{"compression":{}}}');
    const state = new ProxyState({ store, scope: 'u' });
    expect(await state.calibration('m')).toBeUndefined();
    expect(await state.learnedLimits('m')).toEqual({});
    expect(await state.conversation('c')).toEqual({ driver: {} });
    expect(await state.conversation('d')).toEqual({});
  });

  it('keeps two upstreams apart in one store, and forgets learned limits and calibration in time', async () => {
    let clock = 1_000_000;
    const store = createMemoryProxyStore({ now: () => clock });
    const vllm = new ProxyState({ store, scope: upstreamScope('http://vllm:8000'), now: () => clock });
    const other = new ProxyState({ store, scope: upstreamScope('http://other:8000'), now: () => clock });
    await vllm.recordLearnedLimits('m', { contextLength: 8_192 });
    await vllm.saveCalibration('m', observeCalibration(createCalibration(), { reported: 600, raw: 1_000 }));
    await vllm.saveConversation('c', { driver: { manager: {} } });
    expect(await vllm.learnedLimits('m')).toEqual({ contextLength: 8_192 });
    expect(await other.learnedLimits('m')).toEqual({});
    expect(await other.calibration('m')).toBeUndefined();
    expect(await other.conversation('c')).toEqual({});
    clock += LEARNED_LIMITS_TTL_SECONDS * 1_000;
    expect(await vllm.learnedLimits('m')).toEqual({});
    expect(await vllm.calibration('m')).toBeDefined();
    clock += CALIBRATION_TTL_SECONDS * 1_000;
    expect(await vllm.calibration('m')).toBeUndefined();
    expect(await vllm.conversation('c')).toEqual({});
  });
});

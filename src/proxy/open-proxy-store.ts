/**
 * @module
 * `--store memory|sqlite[:PATH]|redis://…`: the store a spec names.
 */
import { SpillwayError } from '../core/index.js';
import { createMemoryProxyStore, type ProxyStore } from './proxy-store.js';
import { createRedisProxyStore } from './redis-proxy-store.js';
import { createSqliteProxyStore } from './sqlite-proxy-store.js';

/**
 * Opens the store a spec names: `memory`, `sqlite` (the default file), `sqlite:PATH`, or a
 * `redis://` / `rediss://` URL.
 *
 * @example
 * const store = openProxyStore('redis://127.0.0.1:6379');
 */
export function openProxyStore(spec: string): ProxyStore {
  if (spec === 'memory') return createMemoryProxyStore();
  if (spec === 'sqlite') return createSqliteProxyStore();
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length);
    if (path === '')
      throw new SpillwayError('invalid_argument', 'sqlite:PATH needs a path, such as sqlite:/tmp/proxy.db');
    return createSqliteProxyStore({ path });
  }
  if (/^rediss?:\/\//.test(spec)) return createRedisProxyStore({ url: spec });
  throw new SpillwayError(
    'invalid_argument',
    `unknown store ${JSON.stringify(spec)}; use memory, sqlite, sqlite:PATH or redis://HOST:PORT`,
  );
}

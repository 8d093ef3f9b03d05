/**
 * @module
 * `spillway/proxy`: the proxy `spillway serve` runs, to embed in a process of your own, and the
 * stores it keeps conversations and learned limits in (memory, SQLite, Redis).
 *
 * @example
 * import { startProxy } from 'spillway/proxy';
 * const proxy = await startProxy({ upstream: 'http://localhost:8000', port: 8421 });
 */
export {
  createMemoryProxyStore,
  createRedisProxyStore,
  createSqliteProxyStore,
  DEFAULT_PROXY_PORT,
  openProxyStore,
  type ProxyLogEntry,
  type ProxyOptions,
  type ProxyStore,
  type RunningProxy,
  redactSecrets,
  startProxy,
} from './index.js';

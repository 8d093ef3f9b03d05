/**
 * @module
 * The Redis proxy store (ioredis): several proxy instances behind a load balancer share learned
 * limits, calibration and conversation state, so the same conversation gets the same bytes
 * whichever instance serves it.
 */
import type { Redis } from 'ioredis';
import { SpillwayError } from '../core/index.js';
import { requireOptional } from '../optional/index.js';
import type { ProxyStore } from './proxy-store.js';

/** How long one Redis command may take before the request goes on without stored state. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/**
 * A proxy store on Redis, at a `redis://` or `rediss://` URL (user, password and database number as
 * in the URL). Commands fail at once while Redis is unreachable (no offline queue; `ready()` waits
 * for the first connection), so an outage costs the proxy its shared state, never a hung request.
 *
 * @example
 * const store = createRedisProxyStore({ url: 'redis://127.0.0.1:6379/0' });
 */
export function createRedisProxyStore({
  url,
  keyPrefix = '',
  commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS,
}: {
  url: string;
  /** Prepended to every key (several deployments on one Redis). */
  keyPrefix?: string;
  commandTimeoutMs?: number;
}): ProxyStore {
  if (!/^rediss?:\/\//.test(url))
    throw new SpillwayError(
      'invalid_config',
      'the Redis store needs a redis:// or rediss:// URL, such as redis://127.0.0.1:6379',
    );
  const { Redis: RedisClient } = requireOptional<typeof import('ioredis')>({
    specifier: 'ioredis',
    feature: 'the Redis proxy store',
  });
  let client: Redis;
  try {
    client = new RedisClient(url, {
      keyPrefix,
      commandTimeout: commandTimeoutMs,
      connectTimeout: commandTimeoutMs * 5,
      maxRetriesPerRequest: 1,
      // Commands fail at once while the connection is down instead of queueing behind reconnects.
      enableOfflineQueue: false,
      lazyConnect: false,
    });
  } catch (error) {
    throw new SpillwayError('invalid_config', `cannot use the Redis store: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Connection errors surface on the commands that fail; an unhandled 'error' event would crash.
  client.on('error', () => undefined);
  return {
    kind: 'redis',
    async get(key) {
      return (await client.get(key)) ?? undefined;
    },
    async set(key, value, { ttlSeconds } = {}) {
      if (ttlSeconds === undefined) await client.set(key, value);
      else await client.set(key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
    async getMany(keys) {
      if (keys.length === 0) return [];
      return (await client.mget(...keys)).map((value) => value ?? undefined);
    },
    async setMany(entries) {
      if (entries.length === 0) return;
      const batch = client.pipeline();
      for (const { key, value, ttlSeconds } of entries)
        if (ttlSeconds === undefined) batch.set(key, value);
        else batch.set(key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
      const results = (await batch.exec()) ?? [];
      const failed = results.find(([error]) => error !== null);
      if (failed) throw failed[0];
    },
    async delete(key) {
      await client.del(key);
    },
    ready() {
      if (client.status === 'ready') return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => done(new Error(`no connection within ${commandTimeoutMs * 5} ms`)),
          commandTimeoutMs * 5,
        );
        const onReady = () => done();
        const onError = (error: Error) => done(error);
        function done(error?: Error): void {
          clearTimeout(timer);
          client.off('ready', onReady);
          client.off('error', onError);
          if (error) reject(error);
          else resolve();
        }
        client.once('ready', onReady);
        client.once('error', onError);
      });
    },
    async close() {
      if (client.status === 'end') return;
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}

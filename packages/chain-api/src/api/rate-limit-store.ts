import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

type RawStoreCtor = new (...args: unknown[]) => FastifyRateLimitStore;
type Callback = Parameters<FastifyRateLimitStore['incr']>[1];

// The plugin's own stores (CommonJS, untyped): Redis for shared counters, in-process for the
// fallback, so both count exactly as the plugin does.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as RawStoreCtor;
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as RawStoreCtor;

interface StoreParams {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
}

/**
 * A rate-limit store that counts in Redis while it is connected and in this process while it is
 * not (unreachable at start, restarting, timing out): limits keep applying per replica instead
 * of every request failing or passing unlimited. `onFallback` is told once per outage.
 *
 * @example
 * await app.register(rateLimit, { store: redisOrLocalStore(redis, 'rl:', log.warn) });
 */
export function redisOrLocalStore(
  redis: Redis,
  nameSpace: string,
  onFallback: (error: Error | undefined) => void,
): FastifyRateLimitStoreCtor {
  let degraded = false;
  const fellBack = (error?: Error) => {
    if (degraded) return;
    degraded = true;
    onFallback(error);
  };
  redis.on('ready', () => {
    degraded = false;
  });

  const make = (shared: FastifyRateLimitStore, local: FastifyRateLimitStore) => {
    const store: FastifyRateLimitStore = {
      incr(key, callback: Callback, timeWindow, max) {
        if (redis.status !== 'ready') {
          fellBack();
          local.incr(key, callback, timeWindow, max);
          return;
        }
        shared.incr(
          key,
          (error, result) => {
            if (error) {
              fellBack(error);
              local.incr(key, callback, timeWindow, max);
            } else callback(null, result);
          },
          timeWindow,
          max,
        );
      },
      child(routeOptions) {
        return make(shared.child(routeOptions), local.child(routeOptions));
      },
    };
    return store;
  };

  return class {
    constructor(params: StoreParams) {
      // biome-ignore lint/correctness/noConstructorReturn: the plugin instantiates the store class
      return make(
        new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, nameSpace),
        new LocalStore(params.continueExceeding, params.exponentialBackoff),
      );
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

/**
 * One fixed-window counter store outside the plugin (the per-IP key lookup limit): Redis shared
 * by every replica when given (falling back to this process while it is unreachable), else
 * this process's memory (an LRU of 5,000 counters).
 *
 * @example
 * const store = counterStore(redis, 'sluice-key-lookups:', log.warn);
 * store.incr(ip, (err, result) => console.log(err ?? result?.current), 60_000, 100);
 */
export function counterStore(
  redis: Redis | undefined,
  nameSpace: string,
  onFallback: (error: Error | undefined) => void,
): FastifyRateLimitStore {
  const params: StoreParams = { continueExceeding: false, exponentialBackoff: false };
  if (redis) {
    const Store = redisOrLocalStore(redis, nameSpace, onFallback) as unknown as new (
      p: StoreParams,
    ) => FastifyRateLimitStore;
    return new Store(params);
  }
  return new LocalStore(false, false);
}

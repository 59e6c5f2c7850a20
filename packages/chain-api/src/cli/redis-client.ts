import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * A Redis client that never holds the process up: connects in the background (an unreachable
 * Redis must not keep the API from listening), fails commands fast while down instead of
 * queueing them, and logs one warning per outage saying what degrades (`purpose`).
 *
 * @example
 * const { redis, close } = openRedis(config.redisUrl, log, 'rate limits counted per process');
 */
export function openRedis(
  url: string,
  log: Logger,
  whileDown: string,
): { redis: Redis; close(): Promise<void> } {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
  });
  // One warning per outage (ioredis retries every <= 2 s and reports each failure).
  let down = false;
  redis.on('error', (error) => {
    if (down) return;
    down = true;
    log.warn({ err: error.message }, `redis unavailable: ${whileDown}`);
  });
  redis.on('ready', () => {
    if (down) log.info('redis reconnected');
    down = false;
  });
  redis.connect().catch(() => {});
  return {
    redis,
    async close() {
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

import type { Database } from '@sluice/db';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ReadDb } from '../api/queries/prepared-query.js';
import type { ReadFence } from '../api/read-fence.js';
import type { ReadServersHealth } from '../api/routes/health.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { listenChangeFeed } from '../change-feed/postgres-change-feed.js';
import { redisChangeChannel, redisChangeFeed } from '../change-feed/redis-change-feed.js';
import type { AppConfig } from '../config/index.js';
import type { ReadRouter } from '../replicas/read-router.js';
import { openReadRouter } from './open-read-router.js';
import { devnetStoreName } from './open-store.js';

/** Where the API reads and how it hears of changes. */
export interface Reads {
  /** The API pool on the primary, or the read router over the standbys. */
  db: ReadDb & Pick<Database, 'ping'>;
  router: ReadRouter | undefined;
  /** Undefined: the API LISTENs on `db` itself if it caches (PGlite, or no cache and no standbys). */
  feed: ChangeFeed | undefined;
  /** The per-request fence (READ_FENCE), when on. */
  fence: ReadFence | undefined;
  close(): Promise<void>;
}

/**
 * With DATABASE_READ_URL, reads go through a `ReadRouter`; change announcements come from the
 * Redis relay when REDIS_URL is set, else from LISTEN on the primary (with the primary's WAL
 * position, which the router gates standby reads on). The router follows the feed before
 * anything else subscribes to it.
 *
 * @example
 * const reads = await openReads(config, apiDb, redis, log, false);
 */
export async function openReads(
  config: AppConfig,
  apiDb: Database,
  redis: { redis: Redis } | undefined,
  log: Logger,
  devnet: boolean,
): Promise<Reads> {
  if (apiDb.kind !== 'postgres') {
    // Embedded: one process per data folder, nothing to fence against.
    return {
      db: apiDb,
      router: undefined,
      feed: undefined,
      fence: undefined,
      close: async () => {},
    };
  }
  const router =
    config.databaseReadUrls.length > 0
      ? await openReadRouter(config, apiDb, log, devnet ? devnetStoreName : undefined)
      : undefined;
  let feed: ChangeFeed | undefined;
  try {
    if (router || config.responseCache.maxBytes > 0) {
      feed = redis
        ? await redisChangeFeed(redis.redis, await redisChangeChannel(apiDb))
        : await listenChangeFeed(apiDb, { withLsn: router !== undefined });
    }
  } catch (error) {
    await router?.close();
    throw error;
  }
  if (router && feed) router.follow(feed);
  const fenced =
    config.readFence === 'on' || (config.readFence === 'auto' && (router || redis) !== undefined);
  return {
    db: router ?? apiDb,
    router,
    feed,
    fence: fenced && (feed || router) ? readFence(feed, router) : undefined,
    async close() {
      await feed?.close();
      await router?.close();
    },
  };
}

/**
 * The change feed's marker round trip (cache and standby gate up to date); when it fails, the
 * standbys are held to the primary's position instead and the answer bypasses the cache. With
 * neither a feed nor standbys, reads go to the primary uncached: nothing to fence.
 */
function readFence(feed: ChangeFeed | undefined, router: ReadRouter | undefined): ReadFence {
  return async () => {
    if (feed && (await feed.sync())) return true;
    await router?.requirePrimary();
    return false;
  };
}

/** /health's view of the read path. */
export function readServersHealth(router: ReadRouter): ReadServersHealth {
  return {
    change_feed: router.feedConnected ? 'connected' : 'down',
    read_servers: router.status(),
  };
}

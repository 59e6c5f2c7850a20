import type { Database } from '@sluice/db';
import pg from 'pg';

/** Exclusive right to index one chain, held while this process lives. */
export interface LeaderLock {
  /** Tries once; true when this process now holds (or already held) the lock. */
  tryAcquire(): Promise<boolean>;
  /** Whether the lock is (still) held. Turns false when its session dies. */
  held(): boolean;
  release(): Promise<void>;
}

const inProcess = new WeakMap<object, Set<string>>();

/**
 * One active indexer per chain: a PostgreSQL session-level advisory lock taken on a dedicated
 * connection (outside the pool), keyed by the schema and the chain id so test schemas don't
 * collide. If the holder dies its session ends and the lock frees itself; a standby replica's next
 * `tryAcquire` takes over. A heartbeat notices a silently dropped connection. On PGlite (one
 * process by construction) the lock is in-process.
 *
 * @example
 * const lock = createLeaderLock(db, 1);
 * if (await lock.tryAcquire()) startIndexing();
 */
export function createLeaderLock(db: Database, chainId: number, heartbeatMs = 5_000): LeaderLock {
  if (db.kind !== 'postgres' || !db.pgPool) {
    let mine = false;
    const set = inProcess.get(db) ?? new Set<string>();
    inProcess.set(db, set);
    const key = String(chainId);
    return {
      async tryAcquire() {
        if (mine) return true;
        if (set.has(key)) return false;
        set.add(key);
        mine = true;
        return true;
      },
      held: () => mine,
      async release() {
        if (mine) set.delete(key);
        mine = false;
      },
    };
  }
  const options = db.pgPool.options;
  let client: pg.Client | undefined;
  let isHeld = false;
  let timer: NodeJS.Timeout | undefined;

  const drop = () => {
    isHeld = false;
    if (timer) clearInterval(timer);
    timer = undefined;
    const c = client;
    client = undefined;
    c?.end().catch(() => {});
  };

  return {
    async tryAcquire() {
      if (isHeld && client) return true;
      drop();
      const c = new pg.Client({
        ...options,
        keepAlive: true,
        application_name: `sluice-indexer-${chainId}`,
      });
      c.on('error', drop);
      c.on('end', () => {
        if (client === c) drop();
      });
      try {
        await c.connect();
        const { rows } = await c.query<{ ok: boolean }>(
          `select pg_try_advisory_lock(hashtext(current_schema() || ':sluice-indexer'), $1) as ok`,
          [chainId],
        );
        if (!rows[0]?.ok) {
          await c.end().catch(() => {});
          return false;
        }
      } catch (error) {
        await c.end().catch(() => {});
        throw error;
      }
      client = c;
      isHeld = true;
      timer = setInterval(() => {
        c.query('select 1').catch(() => {
          if (client === c) drop();
        });
      }, heartbeatMs);
      timer.unref();
      return true;
    },
    held: () => isHeld,
    async release() {
      const c = client;
      if (c && isHeld) {
        await c
          .query(`select pg_advisory_unlock(hashtext(current_schema() || ':sluice-indexer'), $1)`, [
            chainId,
          ])
          .catch(() => {});
      }
      drop();
    },
  };
}

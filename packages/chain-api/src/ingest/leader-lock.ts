import type { Database, Queryable } from '@sluice/db';
import pg from 'pg';
import { BaseError } from '../errors/index.js';

/** This process no longer holds the chain's leader lock: it must not write. */
export class LeadershipLostError extends BaseError<'LEADERSHIP_LOST'> {
  override name = 'LeadershipLostError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'LEADERSHIP_LOST', cause: options.cause });
  }
}

/** Exclusive right to index one chain, held while this process lives. */
export interface LeaderLock {
  /** Tries once; true when this process now holds (or already held) the lock. */
  tryAcquire(): Promise<boolean>;
  /** Whether the lock is (still) held. Turns false when its session dies. */
  held(): boolean;
  /**
   * Fence for a write transaction: throws LeadershipLostError unless the lock is held, checked on
   * the database itself (the lock session still exists and holds the lock) through `tx`.
   */
  assertHeld(tx: Queryable): Promise<void>;
  /** Calls `listener` (once per loss) when a held lock is lost: session ended, errored or silent. */
  onLost(listener: (reason: string) => void): void;
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
 * if (await lock.tryAcquire()) await run();
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
      async assertHeld() {
        if (!mine) throw new LeadershipLostError(`leader lock of chain ${chainId} is not held`);
      },
      onLost() {
        // In-process: only release() ends it.
      },
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
  let backendPid: number | undefined;
  const listeners: ((reason: string) => void)[] = [];

  const drop = () => {
    isHeld = false;
    backendPid = undefined;
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
      // The lock lives as long as this session: its end, an error on it (e.g. the server
      // terminated the backend) or a failed heartbeat means another replica may now lead.
      const lost = (reason: string) => {
        if (client !== c) return;
        const wasHeld = isHeld;
        drop();
        if (wasHeld) for (const l of listeners) l(reason);
      };
      c.on('error', (error: Error) => lost(`lock session error: ${error.message}`));
      c.on('end', () => lost('lock session ended'));
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
      backendPid = (c as unknown as { processID?: number }).processID;
      // A heartbeat unanswered for three periods counts as failed too (a hung connection or
      // server): dropping the session frees the lock once the server notices.
      let since: number | undefined;
      timer = setInterval(() => {
        if (since !== undefined) {
          if (Date.now() - since >= 3 * heartbeatMs) lost('lock heartbeat unanswered');
          return;
        }
        since = Date.now();
        c.query('select 1').then(
          () => {
            since = undefined;
          },
          (error: Error) => lost(`lock heartbeat failed: ${error.message}`),
        );
      }, heartbeatMs);
      timer.unref();
      return true;
    },
    held: () => isHeld,
    async assertHeld(tx) {
      const pid = backendPid;
      if (!isHeld || pid === undefined) {
        throw new LeadershipLostError(`leader lock of chain ${chainId} is not held`);
      }
      const { rows } = await tx.query<{ ok: boolean }>(
        `select exists(select 1 from pg_locks where locktype = 'advisory' and pid = $1
            and objid = $2 and objsubid = 2 and granted) as ok`,
        [pid, chainId],
      );
      if (!rows[0]?.ok) {
        throw new LeadershipLostError(`leader lock session of chain ${chainId} is gone`);
      }
    },
    onLost(listener) {
      listeners.push(listener);
    },
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

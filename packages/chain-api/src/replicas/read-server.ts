import type { Database } from '@sluice/db';
import { readStartedAfter } from '../change-feed/coalesced.js';
import { formatLsn, parseLsn } from '../change-feed/lsn.js';
import { BaseError } from '../errors/index.js';

/**
 * `ok`: serving (when replayed far enough); `lagging`: did not replay a notified batch within the
 * wait, skipped until it has; `down`: unreachable, retried with backoff; `misconfigured`: not a
 * standby, or a standby of another cluster (never used).
 */
export type ReadServerState = 'starting' | 'ok' | 'lagging' | 'down' | 'misconfigured';

/** What /health shows of one read server. */
export interface ReadServerStatus {
  name: string;
  role: 'primary' | 'standby';
  state: ReadServerState;
  /** Last WAL position seen: replayed (standby) or written (primary); null before the first. */
  lsn: string | null;
  /** Bytes of WAL the standby had not replayed at the last check. */
  lag_bytes: number | null;
  /** Seconds since the last replayed commit while WAL is waiting to be replayed; 0 when idle. */
  lag_seconds: number | null;
  /** Queries answered by this server since start. */
  queries: number;
  error?: string;
}

/** `host:port/database` of a connection string: no user, password or options in /health. */
export function serverName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'invalid url';
  }
}

interface ProbeRow {
  standby: boolean;
  replay: string | null;
  system_id: string;
  lag_seconds: number | null;
}

const firstBackoffMs = 250;
const maxBackoffMs = 5_000;

/**
 * One hot standby behind `DATABASE_READ_URL`: its pool, its replayed WAL position (from
 * `pg_last_wal_replay_lsn()`, only ever moving forward while it runs) and its health. Probes are
 * coalesced (see `readStartedAfter`); a failure marks it down until a probe after the backoff
 * succeeds.
 */
export class ReadServer {
  readonly name: string;
  readonly db: Database;
  state: ReadServerState = 'starting';
  /** Highest replayed position seen (0 before the first probe). */
  replayLsn = 0n;
  lagSeconds: number | null = null;
  queries = 0;
  /** Queries running on it now (the router sends the next read to the least busy). */
  inFlight = 0;
  error: string | undefined;
  /** When a down server may be probed again (epoch ms). */
  retryAt = 0;
  readonly #expectSystemId: () => Promise<string>;
  #backoffMs = firstBackoffMs;
  readonly #probe: () => Promise<bigint>;

  constructor(name: string, db: Database, expectSystemId: () => Promise<string>) {
    this.name = name;
    this.db = db;
    this.#expectSystemId = expectSystemId;
    this.#probe = readStartedAfter(() => this.#read());
  }

  /** Reads the replayed position now (coalesced with concurrent probes); marks down on failure. */
  probe(): Promise<bigint> {
    return this.#probe();
  }

  /** Whether queries may go here (given a replayed position far enough). */
  get usable(): boolean {
    return this.state === 'ok';
  }

  /** A query failed for a reason of the server (unreachable, shutting down, not answering). */
  markDown(error: unknown): void {
    if (this.state === 'misconfigured') return;
    if (this.state !== 'down') this.#backoffMs = firstBackoffMs;
    this.state = 'down';
    this.error = error instanceof Error ? error.message.slice(0, 200) : String(error);
    this.retryAt = Date.now() + this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, maxBackoffMs);
  }

  status(primaryLsn: bigint | undefined): ReadServerStatus {
    const known = this.replayLsn > 0n;
    return {
      name: this.name,
      role: 'standby',
      state: this.state,
      lsn: known ? formatLsn(this.replayLsn) : null,
      lag_bytes:
        known && primaryLsn !== undefined && this.state !== 'down'
          ? Number(primaryLsn > this.replayLsn ? primaryLsn - this.replayLsn : 0n)
          : null,
      lag_seconds: this.state === 'down' ? null : this.lagSeconds,
      queries: this.queries,
      ...(this.error && this.state !== 'ok' ? { error: this.error } : {}),
    };
  }

  async #read(): Promise<bigint> {
    let row: ProbeRow | undefined;
    try {
      // Lag in seconds only while WAL waits to be replayed: an idle primary is not lag.
      ({
        rows: [row],
      } = await this.db.query<ProbeRow>(
        `select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replay,
                (select system_identifier::text from pg_control_system()) as system_id,
                case when pg_last_wal_receive_lsn() is null
                       or pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() then 0
                     else extract(epoch from now() - pg_last_xact_replay_timestamp())::float8
                end as lag_seconds`,
      ));
    } catch (error) {
      this.markDown(error);
      throw error;
    }
    if (!row?.standby || row.replay === null) {
      return this.#misconfigured('not a hot standby (pg_is_in_recovery() is false)');
    }
    const lsn = parseLsn(row.replay);
    if (this.state === 'starting' || this.state === 'down') {
      // A standby of another cluster would serve another chain's data.
      if (row.system_id !== (await this.#expectSystemId())) {
        return this.#misconfigured('a standby of another cluster (system identifier differs)');
      }
      this.state = 'ok';
      this.error = undefined;
      // After a restart it may have come back at an earlier position than it had reached.
      this.replayLsn = lsn;
    } else if (lsn > this.replayLsn) {
      this.replayLsn = lsn;
    }
    this.lagSeconds = row.lag_seconds === null ? null : Math.max(0, row.lag_seconds);
    return this.replayLsn;
  }

  #misconfigured(reason: string): never {
    this.state = 'misconfigured';
    this.error = reason;
    throw new BaseError(`${this.name}: ${reason}`, { code: 'REPLICA_MISCONFIGURED' });
  }
}

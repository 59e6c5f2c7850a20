import { type Database, isDatabaseUnavailable, type QueryResult, sqlState } from '@sluice/db';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { readStartedAfter } from '../change-feed/coalesced.js';
import { flushedPrimaryPosition, formatLsn, parseLsn } from '../change-feed/lsn.js';
import type { ReadServer, ReadServerStatus } from './read-server.js';

export interface ReadRouterOptions {
  /** The API's pool on the primary: fallback for every read. */
  primary: Database;
  /** `host:port/db` of the primary, for /health. */
  primaryName: string;
  /** The hot standbys (`DATABASE_READ_URL`). */
  replicas: readonly ReadServer[];
  /** Longest a read waits for a standby to replay a notified batch before using the primary. */
  maxWaitMs?: number;
  /** Probe interval of healthy standbys and of the primary's position (ms). */
  healthIntervalMs?: number;
  /** Probe interval of lagging standbys, so they are used again soon after catching up (ms). */
  lagPollMs?: number;
  onStateChange?: (server: string, state: string, error: string | undefined) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failure of the standby rather than of the statement: the read is retried elsewhere. */
function replicaFault(error: unknown): 'down' | 'conflict' | undefined {
  const state = sqlState(error);
  // "canceling statement due to conflict with recovery": the standby replayed a cleanup the
  // query still needed. The primary has no such conflict.
  if (state === '40001') return 'conflict';
  // A statement timeout is the statement's own slowness: it would be as slow on the primary.
  if (state !== '57014' && isDatabaseUnavailable(error)) return 'down';
  return undefined;
}

/**
 * Routes the API's reads to hot standbys without ever answering older than before.
 *
 * - `required` is the WAL position every read must reflect: raised by each change notification
 *   (the primary's position after the batch committed), and by the position of the server that
 *   answered a read whenever the next read might go to another server (always after a read on
 *   the primary; after standby reads when there are several standbys). A standby serves only
 *   once it has replayed `required`, so an answer is never older than one this process gave.
 * - A standby behind `required` gets `maxWaitMs` to catch up (shared by all waiting reads), then
 *   is marked lagging and skipped until a probe sees it caught up; a read meanwhile goes to the
 *   primary. A standby failing a read is marked down (backoff) and the read retried elsewhere.
 * - While change notifications are not arriving (`setFeedConnected(false)`), `required` follows
 *   the primary's position at every health probe instead.
 *
 * It is a `Queryable` for the routes (plus `queryPrepared`, see `preparedQuery`): each query is
 * routed on its own, as each already ran on its own pooled connection before.
 *
 * @example
 * const reads = new ReadRouter({ primary: apiDb, primaryName, replicas });
 * await reads.start();
 * const { rows } = await reads.query('select 1 as one');
 */
export class ReadRouter {
  readonly kind = 'postgres' as const;
  readonly pgPool = undefined;
  readonly #primary: Database;
  readonly #primaryName: string;
  readonly #replicas: readonly ReadServer[];
  readonly #maxWaitMs: number;
  readonly #healthMs: number;
  readonly #lagPollMs: number;
  readonly #onStateChange: ReadRouterOptions['onStateChange'];
  readonly #primaryPosition: () => Promise<bigint>;
  #required = 0n;
  /** Until the primary's position is read: at start, and after a read on it could not be fenced. */
  #fencePending = true;
  #feedConnected = false;
  #primaryLsn: bigint | undefined;
  #primaryQueries = 0;
  #primaryError: string | undefined;
  #catchUp: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(opts: ReadRouterOptions) {
    this.#primary = opts.primary;
    this.#primaryName = opts.primaryName;
    this.#replicas = opts.replicas;
    this.#maxWaitMs = opts.maxWaitMs ?? 100;
    this.#healthMs = opts.healthIntervalMs ?? 1_000;
    this.#lagPollMs = opts.lagPollMs ?? 25;
    this.#onStateChange = opts.onStateChange;
    this.#primaryPosition = readStartedAfter(async () => {
      const lsn = await flushedPrimaryPosition(this.#primary);
      this.#primaryLsn = lsn;
      return lsn;
    });
  }

  /** Whether change notifications arrive (false: `required` follows the primary each second). */
  get feedConnected(): boolean {
    return this.#feedConnected;
  }

  /** The position reads must reflect (for tests and /health). */
  get required(): bigint {
    return this.#required;
  }

  /** First probes (failures leave servers down or the fence pending, retried by the loop). */
  async start(): Promise<void> {
    await Promise.all([this.#fencePrimary(), ...this.#replicas.map((r) => this.#check(r))]);
    this.#schedule();
  }

  /** A batch committed at or before `lsn`: reads from now on must reflect it. */
  require(lsn: bigint): void {
    if (lsn <= this.#required) return;
    this.#required = lsn;
    if (this.#replicas.some((r) => r.usable && r.replayLsn < lsn)) void this.#waitForReplay();
  }

  /**
   * Raises `required` to the primary's position now (shared by concurrent callers): for a read
   * whose change fence failed, so a standby serves it only if it has replayed everything
   * committed so far. A primary that does not answer changes nothing (it writes nothing new).
   */
  async requirePrimary(): Promise<void> {
    // A primary that failed a moment ago is not asked again per request (it is re-probed
    // every second); one that does not answer holds a request for `maxWaitMs` at most, the
    // fence landing later still raises `required` for the reads after it.
    if (this.#primaryError !== undefined) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#fencePrimary(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#maxWaitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Whether change notifications arrive (see the class comment). */
  setFeedConnected(connected: boolean): void {
    this.#feedConnected = connected;
  }

  /**
   * Takes `required` from each change of `feed`. Subscribe this before anything that caches by
   * the same feed, so a cache never refills from a standby that has not replayed the change.
   */
  follow(feed: ChangeFeed): () => void {
    this.setFeedConnected(feed.connected);
    return feed.subscribe({
      onChange: ({ lsn }) => {
        if (lsn !== undefined) this.require(lsn);
      },
      onConnectionChange: (connected, lsn) => {
        if (lsn !== undefined) this.require(lsn);
        this.setFeedConnected(connected);
      },
    });
  }

  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<Row>> {
    return this.#route((db) => db.query<Row>(sql, params));
  }

  /** A named prepared statement on whichever server answers (planned once per connection). */
  queryPrepared<Row>(name: string, sql: string, params: unknown[]): Promise<QueryResult<Row>> {
    return this.#route(async (db) => {
      const result = await db.pgPool!.query({ name, text: sql, values: params });
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    });
  }

  /** Scripts (never used by reads) run on the primary. */
  exec(sql: string): Promise<void> {
    return this.#primary.exec(sql);
  }

  /** Resolves when reads can be answered: by the primary, else by a standby that is up. */
  async ping(): Promise<void> {
    try {
      await this.#primary.ping();
    } catch (error) {
      if (!this.#replicas.some((r) => r.usable)) throw error;
    }
  }

  /** The primary and each standby, for /health. */
  status(): ReadServerStatus[] {
    return [
      {
        name: this.#primaryName,
        role: 'primary',
        state: this.#primaryError ? 'down' : 'ok',
        lsn: this.#primaryLsn === undefined ? null : formatLsn(this.#primaryLsn),
        lag_bytes: 0,
        lag_seconds: 0,
        queries: this.#primaryQueries,
        ...(this.#primaryError ? { error: this.#primaryError } : {}),
      },
      ...this.#replicas.map((r) => r.status(this.#primaryLsn)),
    ];
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await Promise.all(this.#replicas.map((r) => r.db.close()));
  }

  async #route<T>(run: (db: Database) => Promise<T>): Promise<T> {
    for (;;) {
      const replica = await this.#choose();
      if (!replica) break;
      let result: T;
      try {
        result = await run(replica.db);
      } catch (error) {
        const fault = replicaFault(error);
        if (!fault) throw error;
        if (fault === 'down') this.#setDown(replica, error);
        else break;
        continue;
      } finally {
        replica.inFlight--;
      }
      replica.queries++;
      // With one standby, its own position only moves forward; with several, the next read may
      // go to another one, which must have replayed at least what this one showed.
      if (this.#replicas.length > 1) this.require(await replica.probe().catch(() => 0n));
      return result;
    }
    const result = await run(this.#primary);
    this.#primaryQueries++;
    // Only a standby that may serve later needs to be held to what the primary answered; one
    // that is down is fenced when it comes back (see #check).
    if (this.#replicas.some((r) => r.state === 'ok' || r.state === 'lagging')) {
      await this.#fencePrimary(true);
    }
    return result;
  }

  /**
   * A standby that has replayed `required`, after a shared bounded wait if one is catching up,
   * counted in flight at once (so concurrent reads see each other's choice; the caller
   * decrements).
   */
  async #choose(): Promise<ReadServer | undefined> {
    if (this.#fencePending) return undefined;
    const ready = this.#ready();
    if (ready || !this.#replicas.some((r) => r.usable)) return ready;
    await this.#waitForReplay();
    return this.#fencePending ? undefined : this.#ready();
  }

  #ready(): ReadServer | undefined {
    const best = this.#leastBusy();
    if (best) best.inFlight++;
    return best;
  }

  #leastBusy(): ReadServer | undefined {
    let best: ReadServer | undefined;
    for (const r of this.#replicas) {
      if (!r.usable || r.replayLsn < this.#required) continue;
      // The least busy spreads the load; among equals the one furthest ahead, which stays
      // eligible longest as `required` moves.
      if (
        !best ||
        r.inFlight < best.inFlight ||
        (r.inFlight === best.inFlight && r.replayLsn > best.replayLsn)
      ) {
        best = r;
      }
    }
    return best;
  }

  /** Probes the standbys behind `required` until they replay it or `maxWaitMs` passes. */
  #waitForReplay(): Promise<void> {
    this.#catchUp ??= (async () => {
      const deadline = Date.now() + this.#maxWaitMs;
      for (;;) {
        const behind = this.#replicas.filter((r) => r.usable && r.replayLsn < this.#required);
        if (behind.length === 0 || this.#closed) return;
        if (Date.now() >= deadline) {
          for (const r of behind) this.#setState(r, 'lagging', 'behind the last notified batch');
          return;
        }
        await Promise.all(behind.map((r) => this.#check(r)));
        if (this.#replicas.some((r) => r.usable && r.replayLsn < this.#required)) await sleep(2);
      }
    })().finally(() => {
      this.#catchUp = undefined;
    });
    return this.#catchUp;
  }

  /** Probes one standby; a lagging one that caught up serves again. */
  async #check(replica: ReadServer): Promise<void> {
    const before = replica.state;
    try {
      await replica.probe();
      if (replica.state === 'ok' && (before === 'down' || before === 'starting')) {
        // Back (or new): reads on the primary meanwhile were not fenced; hold it to the
        // primary's position now before it serves.
        replica.state = 'lagging';
        await this.#fencePrimary();
      } else if (replica.state === 'lagging' && replica.replayLsn >= this.#required) {
        replica.state = 'ok';
      }
    } catch {
      // The probe marked it down or misconfigured.
    }
    if (replica.state !== before) this.#onStateChange?.(replica.name, replica.state, replica.error);
  }

  #setDown(replica: ReadServer, error: unknown): void {
    const before = replica.state;
    replica.markDown(error);
    if (before !== replica.state) this.#onStateChange?.(replica.name, replica.state, replica.error);
  }

  #setState(replica: ReadServer, state: 'lagging', reason: string): void {
    if (replica.state === state) return;
    replica.state = state;
    replica.error = reason;
    this.#onStateChange?.(replica.name, state, reason);
  }

  /**
   * Raises `required` to the primary's position now: after a read there (`afterRead`), at start,
   * when a standby comes back, and once a second while announcements are not arriving.
   */
  async #fencePrimary(afterRead = false): Promise<void> {
    try {
      this.require(await this.#primaryPosition());
      this.#fencePending = false;
      this.#primaryError = undefined;
    } catch (error) {
      // Standbys could be behind what the primary just answered: none serves until a fence
      // succeeds. A failed periodic read changes nothing (a primary that is down writes nothing
      // new, so the standbys keep serving what they have).
      if (afterRead) this.#fencePending = true;
      this.#primaryError = error instanceof Error ? error.message.slice(0, 200) : String(error);
    }
  }

  /** The primary's position for /health's lag figures (no flush, no fence), and its state. */
  async #readPrimaryLsn(): Promise<void> {
    try {
      const { rows } = await this.#primary.query<{ lsn: string }>(
        'select pg_current_wal_lsn()::text as lsn',
      );
      this.#primaryLsn = parseLsn(rows[0]!.lsn);
      this.#primaryError = undefined;
    } catch (error) {
      this.#primaryError = error instanceof Error ? error.message.slice(0, 200) : String(error);
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    const lagging = this.#replicas.some((r) => r.state === 'lagging' || r.state === 'down');
    this.#timer = setTimeout(
      () => void this.#tick().finally(() => this.#schedule()),
      lagging ? this.#lagPollMs : this.#healthMs,
    );
    this.#timer.unref();
  }

  #lastHealth = 0;

  async #tick(): Promise<void> {
    const now = Date.now();
    const full = now - this.#lastHealth >= this.#healthMs;
    if (full) {
      this.#lastHealth = now;
      // Without notifications, the primary's position is the only news of new batches.
      if (!this.#feedConnected || this.#fencePending) await this.#fencePrimary();
      else await this.#readPrimaryLsn();
    }
    await Promise.all(
      this.#replicas
        .filter(
          (r) =>
            r.state === 'lagging' ||
            (r.state === 'down' && r.retryAt <= now) ||
            (full && r.state !== 'misconfigured'),
        )
        .map((r) => this.#check(r)),
    );
  }
}

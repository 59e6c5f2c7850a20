import type { Database } from '@sluice/db';

/**
 * Balance tables looked up by their full key (undo snapshots, stored balances before a
 * reconciliation, negative deltas). Without statistics the planner costs the holders index
 * `(chain_id, token, amount desc, wallet)` like the primary key and may pick it: each look-up
 * then walks every holder of the token, so a batch's cost grows with the history (measured: an
 * undo snapshot of 12,600 pairs took 52 s instead of 1.7 s).
 */
const BALANCE_TABLES = ['erc20_balances', 'nft_holdings', 'native_balances'];

/** Rows written before the first refresh: below that every plan is cheap. */
const FIRST_REFRESH_ROWS = 1_000;

/**
 * Keeps the planner's statistics of the balance tables fresh while a backfill grows them faster
 * than autovacuum's analyze follows (or where autovacuum is off): an `analyze` each time the rows
 * written since start doubled, so a few over a whole chain. Only read by the planner: a failure
 * is logged and indexing goes on.
 *
 * @example
 * const stats = new PlannerStats(db, (err) => log.warn({ err }, 'analyze failed'));
 * await stats.wrote(batch.erc20Deltas.size);
 */
export class PlannerStats {
  private written = 0;
  private next = FIRST_REFRESH_ROWS;

  constructor(
    private readonly db: Database,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Counts `rows` balance rows written by a committed batch; refreshes when they doubled. */
  async wrote(rows: number): Promise<boolean> {
    this.written += rows;
    if (this.written < this.next || this.db.kind !== 'postgres') return false;
    this.next = this.written * 2;
    try {
      await this.db.exec(`analyze ${BALANCE_TABLES.join(', ')}`);
      return true;
    } catch (error) {
      this.onError(error);
      return false;
    }
  }
}

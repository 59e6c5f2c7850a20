import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import {
  buildDeferredIndexes,
  chainsBackfilling,
  deferIndexes,
  pendingIndexes,
} from '../store/deferred-indexes.js';

/** A chain whose checkpoint did not move for this long is not waited for (nobody indexes it). */
const ACTIVE_SECONDS = 600;
/** While other chains still backfill, how often a caught-up chain looks again. */
const RECHECK_MS = 1_000;

/**
 * One chain's part in deferring the API-only secondary indexes during a cold backfill
 * (src/store/deferred-indexes.ts): at start, a fresh store whose chain is at least `minBlocks`
 * from the head drops them; once this chain is at the head and no other chain of the store still
 * backfills, they are built. Until then `pending` is non-zero and the chain reports not ready.
 *
 * @example
 * const deferral = new IndexDeferral(db, 1, 1000, log);
 * await deferral.start(5000n, false); // 5,000 blocks below the head, not in wallets mode
 * const none = await deferral.settle(); // true once nothing is left to build
 */
export class IndexDeferral {
  /** Deferred indexes still to build, as last read (0 once built or when nothing was deferred). */
  pending = 0;
  private nextCheck = 0;

  constructor(
    private readonly db: Database,
    private readonly chainId: number,
    private readonly minBlocks: number,
    private readonly log: Logger,
  ) {}

  /**
   * Before the chain's first write of this run: defers on a fresh store far enough from the head
   * (never for a chain in wallets mode, whose idempotent appends need the unique feed index: it
   * builds what another chain deferred instead).
   */
  async start(blocksToHead: bigint, walletsMode: boolean): Promise<void> {
    if (walletsMode) {
      if ((await pendingIndexes(this.db)).length > 0) await this.build('wallets-mode chain');
      return;
    }
    if (this.minBlocks > 0 && blocksToHead >= BigInt(this.minBlocks)) {
      const dropped = await deferIndexes(this.db);
      if (dropped.length > 0) {
        this.log.info(
          { indexes: dropped, blocksToHead: Number(blocksToHead) },
          'fresh store, cold backfill: secondary indexes deferred until every chain is at the head',
        );
      }
    }
    this.pending = (await pendingIndexes(this.db)).length;
    this.nextCheck = 0;
  }

  /**
   * Called while this chain is at the head: builds the deferred indexes once no other chain
   * still backfills. True when none is left to build.
   */
  async settle(): Promise<boolean> {
    if (this.pending === 0) return true;
    if (Date.now() < this.nextCheck) return false;
    this.nextCheck = Date.now() + RECHECK_MS;
    const waiting = await chainsBackfilling(this.db, this.chainId, ACTIVE_SECONDS);
    if (waiting.length > 0) {
      this.pending = (await pendingIndexes(this.db)).length;
      return this.pending === 0;
    }
    await this.build('every chain at the head');
    return true;
  }

  private async build(reason: string): Promise<void> {
    const t0 = performance.now();
    this.log.info({ reason }, 'building deferred secondary indexes');
    const built = await buildDeferredIndexes(this.db);
    this.pending = 0;
    const seconds = Math.round((performance.now() - t0) / 10) / 100;
    this.log.info({ seconds, built }, 'deferred secondary indexes built');
  }
}

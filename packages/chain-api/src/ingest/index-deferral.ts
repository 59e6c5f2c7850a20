import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import { buildDeferredIndexes, deferIndexes, pendingIndexes } from '../store/deferred-indexes.js';

/**
 * One chain's part in deferring the API-only secondary indexes during a cold backfill
 * (src/store/deferred-indexes.ts): at start, a fresh store whose chain is at least `minBlocks`
 * from the head drops them; the first chain of the store to reach the head builds them (a chain
 * never waits for another's backfill to be ready; chains still backfilling then write with the
 * indexes, as without deferral). Until then `pending` is non-zero and the chain reports not ready.
 *
 * @example
 * const deferral = new IndexDeferral(db, 1000, log);
 * await deferral.start(5000n, false); // 5,000 blocks below the head, not in wallets mode
 * const none = await deferral.settle(); // true once nothing is left to build
 */
export class IndexDeferral {
  /** Deferred indexes still to build, as last read (0 once built or when nothing was deferred). */
  pending = 0;

  constructor(
    private readonly db: Database,
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
          'fresh store, cold backfill: secondary indexes deferred until a chain is at the head',
        );
      }
    }
    this.pending = (await pendingIndexes(this.db)).length;
  }

  /** Called while this chain is at the head: builds what is deferred. True once none is left. */
  async settle(): Promise<boolean> {
    if (this.pending === 0) return true;
    await this.build('a chain at the head');
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

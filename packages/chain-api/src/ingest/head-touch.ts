import type { Queryable } from '@sluice/db';
import { touchCheckpointHead } from '../store/checkpoints.js';
import { LeadershipLostError } from './leader-lock.js';

/**
 * Keeps checkpoints.head_block/updated_at fresh while the leader idles at the head, so API-only
 * replicas can tell it is alive; at most every 2 s, counting the batches' own writes.
 *
 * @example
 * const touch = new HeadTouch(db, 1, () => lock.held());
 * await touch.touch(head);
 */
export class HeadTouch {
  private last = 0;

  constructor(
    private readonly db: Queryable,
    private readonly chainId: number,
    private readonly held: () => boolean,
  ) {}

  /** A batch was just written (it moved head_block and updated_at itself). */
  wrote(): void {
    this.last = Date.now();
  }

  async touch(head: bigint): Promise<void> {
    if (Date.now() - this.last < 2_000) return;
    if (!this.held()) throw new LeadershipLostError('leader lock lost');
    this.last = Date.now();
    await touchCheckpointHead(this.db, this.chainId, head);
  }
}

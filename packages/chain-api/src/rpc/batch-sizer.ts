/**
 * Calls per JSON-RPC batch, per method, sized by how long the node takes to answer: a batch that
 * times out (or is refused as too large) halves its method's size, one slower than the target
 * latency halves it too, and batches answered well within the target grow it back by a quarter,
 * never above the configured maximum. Trace calls that take seconds each end up in small batches
 * while cheap calls keep large ones.
 *
 * @example
 * const sizer = new BatchSizer(50, 5_000);
 * sizer.answered('debug_traceBlockByNumber', 50, 12_000); // size('debug_traceBlockByNumber') === 25
 */
export class BatchSizer {
  private readonly sizes = new Map<string, number>();

  constructor(
    readonly max: number,
    /** Answer time a batch should stay under, ms. */
    readonly targetMs: number,
  ) {}

  /** Calls of `method` to put in one batch now. */
  size(method: string): number {
    return this.sizes.get(method) ?? this.max;
  }

  /** A batch of `n` calls of `method` was answered in `ms`. */
  answered(method: string, n: number, ms: number): void {
    const current = this.size(method);
    if (ms > this.targetMs && n > 1) {
      this.sizes.set(method, Math.max(1, Math.min(current, Math.floor(n / 2))));
    } else if (ms < this.targetMs / 4 && n >= current && current < this.max) {
      this.sizes.set(method, Math.min(this.max, Math.ceil(current * 1.25)));
    }
  }

  /** A batch of `n` calls of `method` timed out or was too large for the node. */
  failed(method: string, n: number): void {
    this.sizes.set(method, Math.max(1, Math.min(this.size(method), Math.floor(n / 2))));
  }
}

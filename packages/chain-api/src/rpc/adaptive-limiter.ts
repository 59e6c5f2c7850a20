/**
 * AIMD concurrency limit: grows by one after `growEvery` successes, halves on a throttling/transient
 * failure. Keeps backfill fast on a healthy node and backs off on a struggling one.
 */
export class AdaptiveLimiter {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  private successes = 0;
  limit: number;

  constructor(
    readonly min: number,
    readonly max: number,
    initial = max,
    private readonly growEvery = 4,
  ) {
    this.limit = Math.max(min, Math.min(max, initial));
  }

  /** Runs `fn` once a slot is free. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    while (this.active >= this.limit) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiters.shift()?.();
    }
  }

  /** Records a success; every `growEvery` of them raise the limit by one. */
  success(): void {
    if (++this.successes >= this.growEvery && this.limit < this.max) {
      this.successes = 0;
      this.limit++;
      this.waiters.shift()?.();
    }
  }

  /** Records a transient failure: halve the limit. */
  failure(): void {
    this.successes = 0;
    this.limit = Math.max(this.min, Math.floor(this.limit / 2));
  }
}

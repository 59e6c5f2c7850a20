/**
 * At most `perKey` concurrent runs per key, waiters served in arrival order. A key that floods
 * the server queues behind itself only, so the slots of a shared resource (database pool, the
 * past-state node client) stay open to every other key.
 *
 * @example
 * const slots = new KeyedLimiter(2);
 * await slots.run('key-a', () => rpc.request('eth_blockNumber', []), request.signal);
 */
export class KeyedLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  /** Keys with nothing in flight, by when their last run ended, oldest first (`rememberMs`). */
  private readonly ended = new Map<string, number>();

  /**
   * `borrowWhenAlone`: a key past its slots still runs while no other key has anything in flight
   * (work-conserving: one busy client alone gets the whole server); as soon as another key is
   * active, the busy key's further runs wait for its own slots again. `activeIn`: judge "in
   * flight" by another limiter's runs instead of this one's (database slots judged by requests:
   * a key whose answers come from the cache takes no database slot, yet is active).
   * `rememberMs`: a key still counts as active that long after its last run ended, so a client
   * between two requests does not open a gap in which a busy key borrows every slot (its long
   * statements would then outlast the gap).
   */
  constructor(
    readonly perKey: number,
    private readonly opts: {
      borrowWhenAlone?: boolean;
      activeIn?: KeyedLimiter;
      rememberMs?: number;
    } = {},
  ) {}

  /** Runs `fn` once `key` has a free slot; rejects with the signal's reason if it aborts first. */
  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(key, signal);
    try {
      return await fn();
    } finally {
      this.release(key);
    }
  }

  /**
   * Takes one of `key`'s slots for work that does not fit one function (a whole request); the
   * returned release frees it, once however often it is called.
   */
  async hold(key: string, signal?: AbortSignal): Promise<() => void> {
    await this.acquire(key, signal);
    return this.releaser(key);
  }

  /**
   * `hold` without waiting: the release when `key` has a free slot now (no promise, no signal),
   * else undefined.
   */
  tryHold(key: string): (() => void) | undefined {
    return this.take(key) ? this.releaser(key) : undefined;
  }

  private releaser(key: string): () => void {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.release(key);
    };
  }

  /** Runs in flight and waiting for `key` (for tests and the console). */
  load(key: string): { active: number; waiting: number } {
    return { active: this.active.get(key) ?? 0, waiting: this.waiting.get(key)?.length ?? 0 };
  }

  /** Whether `key` may run past its slots now: borrowing on, no other key in flight. */
  private alone(key: string): boolean {
    return this.opts.borrowWhenAlone === true && !(this.opts.activeIn ?? this).othersActive(key);
  }

  /** Whether a key other than `key` has a run in flight, or ended one within `rememberMs`. */
  private othersActive(key: string): boolean {
    if (this.active.size > 1 || (this.active.size === 1 && !this.active.has(key))) return true;
    this.forgetEnded();
    return this.ended.size > 1 || (this.ended.size === 1 && !this.ended.has(key));
  }

  /** Drops the ends older than `rememberMs` (the oldest come first). */
  private forgetEnded(): void {
    const since = performance.now() - (this.opts.rememberMs ?? 0);
    for (const [key, at] of this.ended) {
      if (at >= since) break;
      this.ended.delete(key);
    }
  }

  /** Takes a slot of `key` if one is free now (or the key may borrow); false otherwise. */
  private take(key: string): boolean {
    const active = this.active.get(key) ?? 0;
    if (active >= this.perKey && !this.alone(key)) return false;
    this.active.set(key, active + 1);
    return true;
  }

  private acquire(key: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.take(key)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const queue = this.waiting.get(key) ?? [];
      this.waiting.set(key, queue);
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = queue.indexOf(grant);
        if (at >= 0) queue.splice(at, 1);
        if (queue.length === 0 && this.waiting.get(key) === queue) this.waiting.delete(key);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(grant);
    });
  }

  private release(key: string): void {
    const active = (this.active.get(key) ?? 1) - 1;
    if (active <= 0) {
      this.active.delete(key);
      if (this.opts.rememberMs) {
        this.ended.delete(key);
        this.ended.set(key, performance.now());
        this.forgetEnded();
      }
    } else this.active.set(key, active);
    this.grant(key);
    // The last other key just finished: a borrowing key's waiters may go now.
    if (this.opts.borrowWhenAlone === true && this.active.size === 1) {
      const [only] = this.active.keys();
      if (only !== undefined && only !== key) this.grant(only);
    }
  }

  /** Lets `key`'s waiters run, in arrival order, while it has room. */
  private grant(key: string): void {
    const queue = this.waiting.get(key);
    while (queue && queue.length > 0) {
      const active = this.active.get(key) ?? 0;
      if (active >= this.perKey && !this.alone(key)) break;
      this.active.set(key, active + 1);
      queue.shift()?.();
    }
    if (queue && queue.length === 0) this.waiting.delete(key);
  }
}

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

  constructor(readonly perKey: number) {}

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

  private acquire(key: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const active = this.active.get(key) ?? 0;
    if (active < this.perKey) {
      this.active.set(key, active + 1);
      return Promise.resolve();
    }
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
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(key);
    // The slot passes straight to the next waiter of the same key (its count stays).
    if (next) {
      next();
      return;
    }
    const active = (this.active.get(key) ?? 1) - 1;
    if (active <= 0) this.active.delete(key);
    else this.active.set(key, active);
  }
}

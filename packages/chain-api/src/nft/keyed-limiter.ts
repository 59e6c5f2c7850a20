/**
 * Limits concurrent work per key (a metadata host), so one collection's thousand tokens on one
 * server do not hit it all at once while other hosts stay idle.
 *
 * @example
 * const perHost = new KeyedLimiter(4);
 * await perHost.run('api.example', () => fetcher.fetch(url));
 */
export class KeyedLimiter {
  readonly #limit: number;
  readonly #active = new Map<string, number>();
  readonly #waiting = new Map<string, Array<() => void>>();

  constructor(limit: number) {
    if (!(Number.isInteger(limit) && limit >= 1))
      throw new RangeError('limit must be a positive integer');
    this.#limit = limit;
  }

  /** Runs `fn` once fewer than `limit` tasks of the same key are running. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if ((this.#active.get(key) ?? 0) >= this.#limit) {
      await new Promise<void>((resolve) => {
        const queue = this.#waiting.get(key) ?? [];
        queue.push(resolve);
        this.#waiting.set(key, queue);
      });
    } else {
      this.#active.set(key, (this.#active.get(key) ?? 0) + 1);
    }
    try {
      return await fn();
    } finally {
      const next = this.#waiting.get(key)?.shift();
      if (next) {
        next(); // hands our slot over: the active count stays the same
      } else {
        const count = (this.#active.get(key) ?? 1) - 1;
        if (count === 0) this.#active.delete(key);
        else this.#active.set(key, count);
        this.#waiting.delete(key);
      }
    }
  }
}

/**
 * Runs `fn` over `items` with at most `concurrency` in flight; resolves when all settled.
 *
 * @example
 * await forEachConcurrent(tokens, 8, (token) => refresh(token));
 */
export async function forEachConcurrent<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(workers);
}

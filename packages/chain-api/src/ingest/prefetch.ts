/**
 * Prepares ranges `from..head` ahead of their consumer: up to `lookahead` in flight, yielded in
 * order. The next range is sized when it is queued (`batchSize()` may change between batches);
 * stops early when `signal` aborts. A failed preparation throws when its turn comes.
 *
 * @example
 * for await (const prepared of prefetch({ from, head, lookahead: 4, batchSize, prepare, signal })) write(prepared);
 */
export async function* prefetch<T>(opts: {
  from: bigint;
  head: bigint;
  lookahead: number;
  batchSize: () => number;
  prepare: (from: bigint, to: bigint) => Promise<T>;
  signal: AbortSignal;
}): AsyncGenerator<T> {
  const { head, lookahead } = opts;
  let next = opts.from;
  const queue: Promise<T>[] = [];
  const fill = () => {
    while (queue.length < lookahead && next <= head) {
      const from = next;
      const last = from + BigInt(opts.batchSize()) - 1n;
      const to = last < head ? last : head;
      const p = opts.prepare(from, to);
      p.catch(() => {}); // awaited in order below; avoid unhandled-rejection noise meanwhile
      queue.push(p);
      next = to + 1n;
    }
  };
  fill();
  while (queue.length > 0 && !opts.signal.aborted) {
    yield await (queue.shift() as Promise<T>);
    fill();
  }
}

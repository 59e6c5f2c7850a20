/** Exponential backoff with full jitter: attempt 0 waits ~base, capped at `cap` ms. */
export function backoffDelay(attempt: number, base = 200, cap = 10_000): number {
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 20));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

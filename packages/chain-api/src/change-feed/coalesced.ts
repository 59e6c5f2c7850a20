const ignore = () => {};

/**
 * Wraps a read (a server's WAL position) so every caller gets the result of a run that STARTED
 * AFTER its call, while concurrent callers share runs: at most one running and one queued, so
 * a thousand requests fencing at once cost two queries, not a thousand.
 *
 * @example
 * const position = readStartedAfter(() => db.query('select pg_current_wal_lsn()'));
 * const lsn = await position(); // a value read after this line ran
 */
export function readStartedAfter<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const run = read();
    running = run;
    const clear = () => {
      if (running === run) running = undefined;
    };
    run.then(clear, clear);
    return run;
  };
  return () => {
    if (!running) return start();
    // The running read may have started before this call: wait for the next one.
    queued ??= running.then(ignore, ignore).then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
}

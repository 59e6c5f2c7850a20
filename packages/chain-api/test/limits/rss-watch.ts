/** Samples this process's resident set size while a trigger runs, keeping the peak. */
export interface RssWatch {
  /** Highest RSS seen since the start, in MiB, above the RSS at the start. */
  growthMiB(): number;
  stop(): void;
}

/**
 * Starts sampling RSS every `everyMs` (default 50 ms).
 *
 * @example
 * const rss = watchRss(); await trigger(); rss.stop(); expect(rss.growthMiB()).toBeLessThan(400);
 */
export function watchRss(everyMs = 50): RssWatch {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  return {
    growthMiB: () => (Math.max(peak, process.memoryUsage().rss) - start) / 1024 / 1024,
    stop: () => clearInterval(timer),
  };
}

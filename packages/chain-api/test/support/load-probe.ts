/** Latency figures of a series of requests. */
export interface LoadFigures {
  requests: number;
  /** Answers other than 200 (status → count), and failed fetches under `error`. */
  failures: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
}

/** Summarizes latencies (ms) and failure statuses. */
export function figures(
  latencies: readonly number[],
  failures: Record<string, number>,
): LoadFigures {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    requests: sorted.length,
    failures,
    p50: Math.round(at(0.5)),
    p99: Math.round(at(0.99)),
    max: Math.round(sorted.at(-1) ?? 0),
  };
}

/**
 * Runs `connections` request loops over `paths` (round robin) until `until()` is true, each
 * request with `key`; resolves with the figures of all requests. 200 counts as success.
 *
 * @example
 * const light = await loop(url, key, ['/v1/evm/balances/0x…'], 10, () => done);
 */
export async function loop(
  baseUrl: string,
  key: string,
  paths: readonly string[],
  connections: number,
  until: () => boolean,
): Promise<LoadFigures> {
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (!until()) {
        const path = paths[next++ % paths.length] as string;
        const started = performance.now();
        let status: string;
        try {
          const res = await fetch(`${baseUrl}${path}`, { headers: { 'x-sim-api-key': key } });
          await res.arrayBuffer();
          status = String(res.status);
        } catch (e) {
          if (process.env.PROBE_DEBUG) console.error('fetch failed', path, (e as Error).cause ?? e);
          status = 'error';
        }
        latencies.push(performance.now() - started);
        if (status !== '200') failures[status] = (failures[status] ?? 0) + 1;
      }
    }),
  );
  return figures(latencies, failures);
}

/** Samples the process's RSS every 50 ms until stopped; `stop()` resolves with the peak (bytes). */
export function sampleRss(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

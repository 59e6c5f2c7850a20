// The subset of autocannon's API the API benchmark uses (the package ships no types).
declare module 'autocannon' {
  export interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec;
    onResponse?: (
      status: number,
      body: string | undefined,
      context: Record<string, unknown>,
      headers: Record<string, string | string[]> | undefined,
    ) => void;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Total requests to send (instead of `duration`). */
    amount?: number;
    /** Requests per second across all connections (a fixed offered rate). */
    overallRate?: number;
    headers?: Record<string, string>;
    requests?: RequestSpec[];
  }
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    max: number;
  }
  interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}

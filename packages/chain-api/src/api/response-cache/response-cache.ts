/** A response body kept as bytes: `parts` joined with the per-request values between them. */
export interface CachedBody {
  /** Serialized JSON split around the slots filled per request (request/response times). */
  parts: readonly Buffer[];
  /** Strong ETag of the body when it has no per-request slots. */
  etag?: string | undefined;
  /** The two slots hold request then response time, unless this is set. */
  responseTimeFirst?: boolean | undefined;
}

export interface ResponseCacheOptions {
  /** Byte budget for all bodies; least recently used entries are evicted past it. */
  maxBytes: number;
  /** Upper bound on an entry's life even when no store change is announced (ms). */
  maxAgeMs: number;
  /**
   * How long past a fill's own `expiresAt` (a clock boundary, not a store change) the old body
   * may still be served while one refresh runs in the background; default 10 s. Without it,
   * every client arriving at the boundary would wait for the same slow recomputation.
   */
  staleWhileRevalidateMs?: number;
  now?: () => number;
}

interface Entry {
  version: number;
  expiresAt: number;
  /** Past `expiresAt` but before this, served while a refresh runs (clock expiry only). */
  staleUntil: number;
  bytes: number;
  body: CachedBody;
}

export interface CacheFill {
  body: CachedBody;
  /** Earlier expiry than `maxAgeMs` (epoch ms), for answers that depend on the clock. */
  expiresAt?: number | undefined;
}

export type CacheOutcome = 'hit' | 'miss' | 'shared' | 'stale';

/**
 * An in-process LRU of serialized responses, each tagged with the store version it was computed
 * under: an entry is served only while the version is unchanged and it has not expired.
 * Concurrent misses of one key share one computation, so 50 clients polling the same wallet
 * right after a block cost one query, not 50.
 *
 * @example
 * const cache = new ResponseCache({ maxBytes: 64 << 20, maxAgeMs: 30_000 });
 * const { body } = await cache.getOrFill(url, version.current(), async () => ({ body: render() }));
 */
export class ResponseCache {
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, { version: number; fill: Promise<CacheFill> }>();
  readonly #maxBytes: number;
  readonly #maxAgeMs: number;
  readonly #staleMs: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(opts: ResponseCacheOptions) {
    this.#maxBytes = opts.maxBytes;
    this.#maxAgeMs = opts.maxAgeMs;
    this.#staleMs = opts.staleWhileRevalidateMs ?? 10_000;
    this.#now = opts.now ?? Date.now;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The body for `key` at store `version`: cached, shared with a computation in flight, or
   * computed by `fill` and kept. A failing `fill` is not cached (each caller sees the error).
   */
  async getOrFill(
    key: string,
    version: number,
    fill: () => Promise<CacheFill>,
  ): Promise<{ body: CachedBody; outcome: CacheOutcome }> {
    const entry = this.#entries.get(key);
    if (entry) {
      const now = this.#now();
      if (entry.version === version && entry.expiresAt > now) {
        // Refresh recency: Map iteration order is the eviction order.
        this.#entries.delete(key);
        this.#entries.set(key, entry);
        return { body: entry.body, outcome: 'hit' };
      }
      if (entry.version === version && entry.staleUntil > now) {
        if (this.#inflight.get(key)?.version !== version) {
          // A failed refresh leaves the stale entry; past staleUntil callers see the error.
          this.#fill(key, version, fill).catch(() => {});
        }
        return { body: entry.body, outcome: 'stale' };
      }
      this.#delete(key, entry);
    }
    const pending = this.#inflight.get(key);
    if (pending && pending.version === version) {
      return { body: (await pending.fill).body, outcome: 'shared' };
    }
    return { body: (await this.#fill(key, version, fill)).body, outcome: 'miss' };
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  async #fill(key: string, version: number, fill: () => Promise<CacheFill>): Promise<CacheFill> {
    const started = fill();
    const mine = { version, fill: started };
    this.#inflight.set(key, mine);
    try {
      const result = await started;
      this.#store(key, version, result);
      return result;
    } finally {
      if (this.#inflight.get(key) === mine) this.#inflight.delete(key);
    }
  }

  #store(key: string, version: number, result: CacheFill): void {
    const bytes = result.body.parts.reduce((sum, part) => sum + part.length, 0) + key.length;
    // One huge response must not flush everything else.
    if (bytes > this.#maxBytes / 4) return;
    const hardExpiry = this.#now() + this.#maxAgeMs;
    const expiresAt = Math.min(hardExpiry, result.expiresAt ?? Infinity);
    const staleUntil =
      expiresAt < hardExpiry ? Math.min(hardExpiry, expiresAt + this.#staleMs) : expiresAt;
    const previous = this.#entries.get(key);
    if (previous) this.#delete(key, previous);
    this.#entries.set(key, { version, expiresAt, staleUntil, bytes, body: result.body });
    this.#bytes += bytes;
    for (const [oldKey, old] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#delete(oldKey, old);
    }
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

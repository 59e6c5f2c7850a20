import type { Dep, Invalidation } from './cache-deps.js';
import { DependencyIndex } from './dependency-index.js';

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

/**
 * A body whose prices are applied at response time: the cache keeps the rows it was rendered
 * from and renders them again when a price they show has changed.
 */
export interface LiveBody {
  /** A price the body shows changed since it was rendered. */
  outdated(): boolean;
  /** The body rendered again with current prices; undefined when the rows cannot (reload). */
  refresh(): Promise<CachedBody | undefined>;
}

interface Entry {
  deps: readonly Dep[];
  expiresAt: number;
  /** Past `expiresAt` but before this, served while a refresh runs (clock expiry only). */
  staleUntil: number;
  bytes: number;
  /** Bytes the kept rows of a live body take, roughly. */
  retained: number;
  body: CachedBody;
  live: LiveBody | undefined;
  repricing: Promise<CachedBody | undefined> | undefined;
  /** Read since it was last passed over for eviction (a second chance; see `#evict`). */
  used: boolean;
}

export interface CacheFill {
  body: CachedBody;
  /** Earlier expiry than `maxAgeMs` (epoch ms), for answers that depend on the clock. */
  expiresAt?: number | undefined;
  /** What the answer was built from; a change to any of them drops it. */
  deps: readonly Dep[];
  live?: LiveBody | undefined;
  /** False: answer this caller, keep nothing. */
  keep?: boolean | undefined;
}

export type CacheOutcome = 'hit' | 'miss' | 'shared' | 'stale' | 'repriced';

/** Invalidations remembered for fills still running; a fill older than all of them is not kept. */
const LOG_SIZE = 1_024;

/**
 * An in-process LRU of serialized responses, each with what it was built from (`Dep`s): a store
 * change drops exactly the entries depending on what it names, and a price change re-renders
 * the live ones showing that price. A fill that a change overtook while it ran is answered but
 * not kept. Concurrent misses of one key share one computation, so 50 clients polling the same
 * wallet right after a block cost one query, not 50.
 */
export class ResponseCache {
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, { seq: number; fill: Promise<CacheFill> }>();
  readonly #index = new DependencyIndex();
  /** Recent invalidations, oldest first, with the sequence number each one took. */
  readonly #log: { seq: number; inv: Invalidation | 'all' }[] = [];
  readonly #maxBytes: number;
  readonly #maxAgeMs: number;
  readonly #staleMs: number;
  readonly #now: () => number;
  #bytes = 0;
  #seq = 0;

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
   * The body for `key`: cached (re-rendered first if a price it shows changed), shared with a
   * computation in flight, or computed by `fill` and kept. A failing `fill` is not cached.
   */
  async getOrFill(
    key: string,
    fill: () => Promise<CacheFill>,
  ): Promise<{ body: CachedBody; outcome: CacheOutcome }> {
    const entry = this.#entries.get(key);
    if (entry) {
      const now = this.#now();
      const fresh = entry.expiresAt > now;
      if (fresh || entry.staleUntil > now) {
        let body = entry.body;
        let repriced = false;
        if (entry.live?.outdated()) {
          const again = await this.#reprice(key, entry);
          if (again) {
            body = again;
            repriced = true;
          }
        }
        // A failed reprice may have dropped the entry meanwhile.
        if (repriced || this.#entries.get(key) === entry) {
          // A flag, not a move to the end of the Map: a hit stays a lookup and a store.
          entry.used = true;
          if (!fresh && this.#inflight.get(key)?.seq !== this.#seq) {
            // A failed refresh leaves the stale entry; past staleUntil callers see the error.
            this.#fill(key, fill).catch(() => {});
          }
          return { body, outcome: repriced ? 'repriced' : fresh ? 'hit' : 'stale' };
        }
      } else {
        this.#delete(key, entry);
      }
    }
    const pending = this.#inflight.get(key);
    if (pending && pending.seq === this.#seq) {
      return { body: (await pending.fill).body, outcome: 'shared' };
    }
    return { body: (await this.#fill(key, fill)).body, outcome: 'miss' };
  }

  /** Drops the entries a store change names (and fills in flight that read before it). */
  invalidate(inv: Invalidation): void {
    if (inv.empty) return;
    this.#remember(inv);
    for (const key of this.#index.matching(inv)) {
      const entry = this.#entries.get(key);
      if (entry) this.#delete(key, entry);
    }
  }

  /** Drops everything (a change of unknown extent, or changes missed). */
  clear(): void {
    this.#remember('all');
    this.#entries.clear();
    this.#index.clear();
    this.#bytes = 0;
  }

  #remember(inv: Invalidation | 'all'): void {
    const seq = ++this.#seq;
    // Only fills still running read the log: keep what is newer than the oldest of them.
    let oldest = seq;
    for (const { seq: started } of this.#inflight.values()) oldest = Math.min(oldest, started);
    let drop = 0;
    while (drop < this.#log.length && this.#log[drop]!.seq <= oldest) drop++;
    if (drop > 0) this.#log.splice(0, drop);
    if (this.#inflight.size > 0) this.#log.push({ seq, inv });
    if (this.#log.length > LOG_SIZE) this.#log.shift();
  }

  /** Whether a change since `seq` touches `deps` (or is too old to tell). */
  #overtaken(seq: number, deps: readonly Dep[]): boolean {
    if (seq === this.#seq) return false;
    const first = this.#log[0];
    // Every change after `seq` must still be in the log (it keeps those since the oldest fill).
    if (!first || first.seq > seq + 1) return true;
    for (let i = this.#log.length - 1; i >= 0 && this.#log[i]!.seq > seq; i--) {
      const { inv } = this.#log[i]!;
      if (inv === 'all' || inv.matches(deps)) return true;
    }
    return false;
  }

  #reprice(key: string, entry: Entry): Promise<CachedBody | undefined> {
    entry.repricing ??= (async () => {
      try {
        const body = await entry.live!.refresh();
        if (this.#entries.get(key) !== entry) return body;
        if (!body) {
          this.#delete(key, entry);
          return undefined;
        }
        const bytes = bodyBytes(body, key) + entry.retained;
        this.#bytes += bytes - entry.bytes;
        entry.bytes = bytes;
        entry.body = body;
        return body;
      } finally {
        entry.repricing = undefined;
      }
    })();
    return entry.repricing;
  }

  async #fill(key: string, fill: () => Promise<CacheFill>): Promise<CacheFill> {
    const seq = this.#seq;
    const started = fill();
    const mine = { seq, fill: started };
    this.#inflight.set(key, mine);
    try {
      const result = await started;
      if (result.keep !== false && !this.#overtaken(seq, result.deps)) this.#store(key, result);
      return result;
    } finally {
      if (this.#inflight.get(key) === mine) this.#inflight.delete(key);
    }
  }

  #store(key: string, result: CacheFill): void {
    // Rows kept for re-rendering take about what their rendering does.
    const retained = result.live ? bodyBytes(result.body, '') : 0;
    const bytes = bodyBytes(result.body, key) + retained;
    // One huge response must not flush everything else.
    if (bytes > this.#maxBytes / 4) return;
    const hardExpiry = this.#now() + this.#maxAgeMs;
    const expiresAt = Math.min(hardExpiry, result.expiresAt ?? Infinity);
    const staleUntil =
      expiresAt < hardExpiry ? Math.min(hardExpiry, expiresAt + this.#staleMs) : expiresAt;
    const previous = this.#entries.get(key);
    if (previous) this.#delete(key, previous);
    this.#entries.set(key, {
      deps: result.deps,
      expiresAt,
      staleUntil,
      bytes,
      retained,
      body: result.body,
      live: result.live,
      repricing: undefined,
      used: false,
    });
    this.#index.add(key, result.deps);
    this.#bytes += bytes;
    if (this.#bytes > this.#maxBytes) this.#evict(key);
  }

  /**
   * Drops entries, oldest first, until the budget holds; one read since it was last passed over
   * moves to the end instead (CLOCK, close to least recently used without reordering on every
   * hit). Each entry moves at most once per call, so this ends. `stored`, just kept, stays.
   */
  #evict(stored: string): void {
    const moved: [string, Entry][] = [];
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      if (key === stored) continue;
      if (entry.used) {
        entry.used = false;
        moved.push([key, entry]);
      } else {
        this.#delete(key, entry);
      }
    }
    // Moved after the pass (a Map iterator would visit re-inserted keys again).
    for (const [key, entry] of moved) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    // Everything was read since the last pass: evict plain oldest first.
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      if (key !== stored) this.#delete(key, entry);
    }
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#index.remove(key, entry.deps);
    this.#bytes -= entry.bytes;
  }
}

function bodyBytes(body: CachedBody, key: string): number {
  return body.parts.reduce((sum, part) => sum + part.length, 0) + key.length;
}

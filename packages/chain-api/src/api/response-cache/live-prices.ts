import { type ChainStoreChange, changeKey } from '../../changes/store-change.js';
import { BaseError } from '../../errors/index.js';
import type { BalanceRow } from '../queries/balances-query.js';
import { preparedQuery, type ReadDb } from '../queries/prepared-query.js';

/** A token's current price row, as the balance and activity queries join it (null: no row). */
export type LivePrice = Pick<
  BalanceRow,
  'price_usd' | 'pool_size' | 'low_liquidity' | 'pool_type' | 'pool_address' | 'pool_tokens'
>;

/** Current price of (chain, token) for a render; null when the token has no price row. */
export type PriceLookup = (chainId: number, token: string) => LivePrice | null;

/** The (chain id → tokens) an answer shows current prices of. */
export type PricedTokens = ReadonlyMap<number, readonly string[]>;

interface ChainPrices {
  /** Loaded tokens: their row, or null when token_prices has none. */
  values: Map<string, LivePrice | null>;
  /** Tick of each token's last announced change. */
  changedAt: Map<string, number>;
  /** Tick of the last change of every price of the chain. */
  allChangedAt: number;
  lastChange: number;
  /** Change key → tokens ever loaded or queued under it (keys are address prefixes). */
  byKey: Map<string, Set<string>>;
  queued: Set<string>;
  /** The load in flight: its tokens, and those a change made stale while it ran. */
  loading: { tokens: ReadonlySet<string>; tainted: Set<string> | 'all' } | undefined;
  cycle: Promise<void> | undefined;
}

const PRICE_SQL = `select token, price_usd, pool_size, low_liquidity, pool_type, pool_address, pool_tokens
  from token_prices where chain_id = $1 and token = any($2::text[])`;

/**
 * Current prices per chain, held in memory so cached holdings are priced at response time: a
 * price tick re-renders the answers showing that token from their kept rows instead of dropping
 * them. Tokens are loaded on first use (one query per chain for everything asked meanwhile) and
 * reloaded when a store change names their price; until then a changed token counts as not
 * loaded, so no answer is rendered with a price older than the last announced change.
 *
 * @example
 * const prices = new LivePrices(db);
 * const tokens = new Map([[1, ['native', usdc]]]);
 * await prices.ensure(tokens);
 * prices.lookup(1, usdc)?.price_usd;
 */
export class LivePrices {
  readonly #db: ReadDb;
  readonly #maxTokens: number;
  readonly #chains = new Map<number, ChainPrices>();
  #tick = 1;

  constructor(db: ReadDb, opts: { maxTokens?: number } = {}) {
    this.#db = db;
    this.#maxTokens = opts.maxTokens ?? 200_000;
  }

  /** Moves on every announced price change; a render remembers the tick it saw. */
  get tick(): number {
    return this.#tick;
  }

  /** The loaded price of a token; throws when it is not loaded (call `ensure` first). */
  lookup: PriceLookup = (chainId, token) => {
    const value = this.#chains.get(chainId)?.values.get(token);
    if (value === undefined)
      throw new BaseError(`price of ${chainId}:${token} is not loaded`, {
        code: 'PRICE_NOT_LOADED',
      });
    return value;
  };

  /** Whether every token's current price is loaded (none changed since it was). */
  loaded(tokens: PricedTokens): boolean {
    for (const [chainId, list] of tokens) {
      const c = this.#chains.get(chainId);
      if (!c) return false;
      for (const token of list) if (!c.values.has(token)) return false;
    }
    return true;
  }

  /** Loads the prices `tokens` needs that are not loaded (rejects when the store fails). */
  async ensure(tokens: PricedTokens): Promise<void> {
    for (let round = 0; !this.loaded(tokens); round++) {
      if (round > 50)
        throw new BaseError('prices keep changing while they load', { code: 'PRICES_UNSTABLE' });
      const pending: Promise<void>[] = [];
      for (const [chainId, list] of tokens) {
        const c = this.#chain(chainId);
        for (const token of list) {
          // A token being read comes back with that read (or is read again if it went stale).
          if (!c.values.has(token) && !c.loading?.tokens.has(token)) this.#queue(c, token);
        }
        if (c.queued.size > 0 || c.cycle) pending.push(this.#pump(chainId, c));
      }
      await Promise.all(pending);
    }
  }

  /** Whether a price among `tokens` changed after `tick` (the answer must be re-rendered). */
  changedSince(tokens: PricedTokens, tick: number): boolean {
    for (const [chainId, list] of tokens) {
      const c = this.#chains.get(chainId);
      if (!c) return true;
      if (c.lastChange <= tick) continue;
      if (c.allChangedAt > tick) return true;
      for (const token of list) if ((c.changedAt.get(token) ?? 0) > tick) return true;
    }
    return false;
  }

  /** Takes in one chain's announced change: changed prices are reloaded before use. */
  apply(change: ChainStoreChange): void {
    const c = this.#chains.get(change.chainId);
    if (!c) return;
    if (change.all || change.allPrices) {
      this.#invalidateAll(change.chainId, c, true);
      return;
    }
    if (change.prices.size === 0) return;
    const tick = ++this.#tick;
    for (const key of change.prices) {
      for (const token of c.byKey.get(key) ?? []) {
        const had = c.values.delete(token);
        c.changedAt.set(token, tick);
        c.lastChange = tick;
        if (c.loading?.tokens.has(token) && c.loading.tainted !== 'all')
          c.loading.tainted.add(token);
        // Loaded again right away, so the next request finds it.
        if (had) this.#queue(c, token);
      }
    }
    if (c.queued.size > 0) this.#pump(change.chainId, c).catch(() => {});
  }

  /** Forgets everything (changes may have been missed while nobody listened). */
  reset(): void {
    for (const [chainId, c] of this.#chains) this.#invalidateAll(chainId, c, false);
  }

  #invalidateAll(chainId: number, c: ChainPrices, reload: boolean): void {
    const tick = ++this.#tick;
    const had = [...c.values.keys()];
    c.values.clear();
    c.changedAt.clear();
    // Every answer re-renders (allChangedAt); a load in flight is discarded below. Tokens are
    // keyed again as they are queued, so this stays as large as what is in use.
    c.byKey.clear();
    c.allChangedAt = tick;
    c.lastChange = tick;
    if (c.loading) c.loading.tainted = 'all';
    if (!reload) return;
    for (const token of had) this.#queue(c, token);
    if (c.queued.size > 0) this.#pump(chainId, c).catch(() => {});
  }

  #chain(chainId: number): ChainPrices {
    let c = this.#chains.get(chainId);
    if (!c) {
      c = {
        values: new Map(),
        changedAt: new Map(),
        allChangedAt: 0,
        lastChange: 0,
        byKey: new Map(),
        queued: new Set(),
        loading: undefined,
        cycle: undefined,
      };
      this.#chains.set(chainId, c);
    }
    return c;
  }

  #queue(c: ChainPrices, token: string): void {
    c.queued.add(token);
    const key = changeKey(token);
    let tokens = c.byKey.get(key);
    if (!tokens) {
      tokens = new Set();
      c.byKey.set(key, tokens);
    }
    tokens.add(token);
  }

  /** Runs loads until nothing is queued; one in flight per chain, so answers apply in order. */
  #pump(chainId: number, c: ChainPrices): Promise<void> {
    if (!c.cycle) {
      const run = this.#load(chainId, c);
      c.cycle = run;
      run
        .finally(() => {
          if (c.cycle === run) c.cycle = undefined;
        })
        .catch(() => {});
    }
    return c.cycle;
  }

  async #load(chainId: number, c: ChainPrices): Promise<void> {
    while (c.queued.size > 0) {
      const tokens = c.queued;
      c.queued = new Set();
      const loading = { tokens, tainted: new Set<string>() as Set<string> | 'all' };
      c.loading = loading;
      try {
        const { rows } = await preparedQuery<LivePrice & { token: string }>(this.#db, PRICE_SQL, [
          chainId,
          [...tokens],
        ]);
        const found = new Map(rows.map(({ token, ...price }) => [token, price]));
        for (const token of tokens) {
          // A change announced while this read ran may be newer than what it read.
          if (loading.tainted === 'all' || loading.tainted.has(token)) c.queued.add(token);
          else c.values.set(token, found.get(token) ?? null);
        }
      } catch (error) {
        for (const token of tokens) c.queued.add(token);
        throw error;
      } finally {
        c.loading = undefined;
      }
      if (c.values.size > this.#maxTokens) this.#invalidateAll(chainId, c, false);
    }
  }
}

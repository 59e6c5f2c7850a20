import type { PoolSnapshot } from '../math/pool-snapshot.js';
import type { PoolInfo, PoolState } from '../store/pool-reader.js';
import type { PricingThresholds } from '../thresholds.js';
import { isQuoteToken, type PricingAnchors } from './anchors.js';
import { bestRoute, priceToken, type RouteQuote, type TokenPrice } from './select-route.js';

/**
 * Tokens whose price or pool size a state change of `pool` can move: the non-quote side of a
 * pool against a quote token; for a pool between two quote tokens, the wrapped native (its own
 * price) and the stablecoins on it (their pool size). Pools without a quote token move nothing.
 */
export function affectedTokens(
  pool: Pick<PoolInfo, 'token0' | 'token1'>,
  anchors: PricingAnchors,
): string[] {
  const q0 = isQuoteToken(anchors, pool.token0);
  const q1 = isQuoteToken(anchors, pool.token1);
  if (q0 && q1) return [pool.token0, pool.token1];
  if (q0) return [pool.token1];
  if (q1) return [pool.token0];
  return [];
}

/**
 * The route pools of one chain with their latest states, answering "what is this token's price
 * now". Feed it states in block order with `setState`; it re-prices the wrapped native on demand.
 */
export class RouteBook {
  readonly #anchors: PricingAnchors;
  readonly #thresholds: PricingThresholds;
  readonly #decimals: ReadonlyMap<string, number>;
  readonly #held: ReadonlyMap<string, bigint>;
  readonly #byToken = new Map<string, PoolInfo[]>();
  readonly #snapshots = new Map<string, PoolSnapshot>();
  #wrapped: RouteQuote | null = null;
  #wrappedStale = true;

  /**
   * @param pools route pools (see `loadRoutePools`)
   * @param decimals token decimals; pools with a token of unknown decimals are skipped
   * @param held v3 pools' token balances keyed `pool:token`
   */
  constructor(
    anchors: PricingAnchors,
    thresholds: PricingThresholds,
    pools: readonly PoolInfo[],
    decimals: ReadonlyMap<string, number>,
    held: ReadonlyMap<string, bigint>,
  ) {
    this.#anchors = anchors;
    this.#thresholds = thresholds;
    this.#decimals = decimals;
    this.#held = held;
    for (const p of pools) {
      for (const t of [p.token0, p.token1]) {
        const list = this.#byToken.get(t);
        if (list) list.push(p);
        else this.#byToken.set(t, [p]);
      }
    }
  }

  /** Applies a pool's state (ignored for pools outside the book or with unknown decimals). */
  setState(info: PoolInfo, state: PoolState): void {
    const d0 = this.#decimals.get(info.token0);
    const d1 = this.#decimals.get(info.token1);
    if (d0 === undefined || d1 === undefined || !this.#byToken.has(info.token0)) return;
    const v3 = info.type === 'uniswap_v3';
    this.#snapshots.set(info.address, {
      address: info.address,
      type: info.type,
      token0: info.token0,
      token1: info.token1,
      decimals0: d0,
      decimals1: d1,
      reserve0: v3
        ? (this.#held.get(`${info.address}:${info.token0}`) ?? 0n)
        : (state.reserve0 ?? 0n),
      reserve1: v3
        ? (this.#held.get(`${info.address}:${info.token1}`) ?? 0n)
        : (state.reserve1 ?? 0n),
      sqrtPriceX96: state.sqrtPriceX96 ?? 0n,
      liquidity: state.liquidity ?? 0n,
    });
    const w = this.#anchors.wrappedNative;
    if (w !== undefined && (info.token0 === w || info.token1 === w)) this.#wrappedStale = true;
  }

  #poolsOf(token: string): PoolSnapshot[] {
    const out: PoolSnapshot[] = [];
    for (const p of this.#byToken.get(token) ?? []) {
      const s = this.#snapshots.get(p.address);
      if (s) out.push(s);
    }
    return out;
  }

  /** The wrapped native's best stablecoin route at the current states (cached until it moves). */
  wrappedRoute(): RouteQuote | null {
    const w = this.#anchors.wrappedNative;
    if (w === undefined) return null;
    if (this.#wrappedStale) {
      this.#wrapped = bestRoute(w, this.#poolsOf(w), this.#anchors, null);
      this.#wrappedStale = false;
    }
    return this.#wrapped;
  }

  /**
   * Price of `token` at the current states (null: no route at all).
   *
   * @example
   * book.price(uni)?.priceUsd
   */
  price(token: string): TokenPrice | null {
    const wrapped = token === this.#anchors.wrappedNative ? null : this.wrappedRoute();
    return priceToken(token, this.#poolsOf(token), this.#anchors, wrapped, this.#thresholds);
  }
}

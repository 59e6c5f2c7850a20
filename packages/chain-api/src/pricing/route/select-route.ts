import { poolLiquidityUsd, poolPrice } from '../math/pool-liquidity.js';
import type { PoolSnapshot, PoolType } from '../math/pool-snapshot.js';
import { compareRatio, minRatio, mulRatio, type Ratio, ratioToNumber } from '../math/ratio.js';
import type { PricingThresholds } from '../thresholds.js';
import { isQuoteToken, type PricingAnchors } from './anchors.js';

const ONE: Ratio = { num: 1n, den: 1n };

/** An exact USD quote for one token through one route (before thresholds are applied). */
export interface RouteQuote {
  token: string;
  /** First hop: the pool that holds the token. */
  pool: PoolSnapshot;
  /** Counter token of the first hop (a stablecoin or the wrapped native). */
  quote: string;
  /** Whole quote-token units per whole token. */
  priceInQuote: Ratio;
  priceUsd: Ratio;
  /** USD liquidity of the weakest hop. */
  liquidityUsd: Ratio;
  /** First hop's liquidity in whole quote-token units (2 × counter depth). */
  quoteLiquidity: Ratio;
  /** Pool addresses from the token to USD (1 or 2). */
  route: string[];
}

/** Price of one token as stored and served: floats, thresholds applied. */
export interface TokenPrice {
  token: string;
  /** Null when the pool is under the minimum liquidity (unpriced). */
  priceUsd: number | null;
  /** USD liquidity of the pricing route's weakest hop; null when there is no pool. */
  poolSize: number | null;
  lowLiquidity: boolean;
  pool: { address: string; type: PoolType; tokens: [string, string] } | null;
  quote: string;
  priceInQuote: number;
  quoteLiquidity: number;
  route: string[];
}

function sideOf(pool: PoolSnapshot, token: string): 0 | 1 | null {
  if (pool.token0 === token) return 0;
  if (pool.token1 === token) return 1;
  return null;
}

function better(a: RouteQuote | null, b: RouteQuote): RouteQuote {
  if (a === null) return b;
  const c = compareRatio(b.liquidityUsd, a.liquidityUsd);
  if (c !== 0) return c > 0 ? b : a;
  return b.pool.address < a.pool.address ? b : a; // deterministic on ties
}

/**
 * The deepest route for `token` through the given pools: one hop to a stablecoin (1 USD), or one
 * hop to the wrapped native plus the wrapped native's own stablecoin route (`wrappedQuote`), the
 * weakest hop's liquidity counting. Pools not holding `token` against a quote token are ignored.
 * Returns null when no route exists.
 *
 * @example
 * const weth = bestRoute(anchors.wrappedNative!, pools, anchors, null);
 * const uni = bestRoute('0x1f98...', pools, anchors, weth);
 */
export function bestRoute(
  token: string,
  pools: readonly PoolSnapshot[],
  anchors: PricingAnchors,
  wrappedQuote: RouteQuote | null,
): RouteQuote | null {
  let best: RouteQuote | null = null;
  const isWrapped = token === anchors.wrappedNative;
  for (const pool of pools) {
    const side = sideOf(pool, token);
    if (side === null) continue;
    const counter = side === 0 ? pool.token1 : pool.token0;
    if (counter === token || !isQuoteToken(anchors, counter)) continue;
    const priceInQuote = poolPrice(pool, side);
    if (priceInQuote === null) continue;
    if (anchors.stablecoins.has(counter)) {
      const liquidityUsd = poolLiquidityUsd(pool, side, ONE);
      const quote: RouteQuote = {
        token,
        pool,
        quote: counter,
        priceInQuote,
        priceUsd: priceInQuote,
        liquidityUsd,
        quoteLiquidity: liquidityUsd,
        route: [pool.address],
      };
      best = better(best, quote);
    } else if (!isWrapped && wrappedQuote !== null) {
      // Second hop through the wrapped native: its USD price and its own pool's depth cap ours.
      const wrappedUsd = wrappedQuote.priceUsd;
      const quoteLiquidity = poolLiquidityUsd(pool, side, ONE);
      const liquidityUsd = minRatio(
        mulRatio(quoteLiquidity, wrappedUsd),
        wrappedQuote.liquidityUsd,
      );
      best = better(best, {
        token,
        pool,
        quote: counter,
        priceInQuote,
        priceUsd: mulRatio(priceInQuote, wrappedUsd),
        liquidityUsd,
        quoteLiquidity,
        route: [pool.address, ...wrappedQuote.route],
      });
    }
  }
  return best;
}

/**
 * Applies the chain's rules to a token: stablecoins are 1 USD whatever their pools say (their
 * deepest pool still gives `pool_size`); other tokens take their best route's price unless its
 * liquidity is under `minLiquidityUsd`, in which case the price is null but the pool is reported.
 * Returns null when the token has no route at all (and is not a stablecoin).
 *
 * @example
 * priceToken(token, pools, anchors, wethRoute, { minLiquidityUsd: 1000, lowLiquidityUsd: 10000 })
 */
export function priceToken(
  token: string,
  pools: readonly PoolSnapshot[],
  anchors: PricingAnchors,
  wrappedQuote: RouteQuote | null,
  thresholds: PricingThresholds,
): TokenPrice | null {
  const isStable = anchors.stablecoins.has(token);
  const route = bestRoute(token, pools, anchors, wrappedQuote);
  if (route === null) {
    if (!isStable) return null;
    return {
      token,
      priceUsd: 1,
      poolSize: null,
      lowLiquidity: true,
      pool: null,
      quote: token,
      priceInQuote: 1,
      quoteLiquidity: 0,
      route: [],
    };
  }
  const poolSize = ratioToNumber(route.liquidityUsd);
  const priced = isStable || poolSize >= thresholds.minLiquidityUsd;
  return {
    token,
    priceUsd: isStable ? 1 : priced ? ratioToNumber(route.priceUsd) : null,
    poolSize,
    lowLiquidity: poolSize < thresholds.lowLiquidityUsd,
    pool: {
      address: route.pool.address,
      type: route.pool.type,
      tokens: [route.pool.token0, route.pool.token1],
    },
    quote: isStable ? token : route.quote,
    priceInQuote: isStable ? 1 : ratioToNumber(route.priceInQuote),
    quoteLiquidity: ratioToNumber(route.quoteLiquidity),
    route: route.route,
  };
}

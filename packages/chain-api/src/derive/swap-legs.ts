import type { DecodedEvent } from '../decode/index.js';

/** token0/token1 of a verified pool. */
export interface PoolTokenPair {
  token0: string;
  token1: string;
}

/** One Swap event of a verified pool, with what went into and out of the pool. */
export interface SwapLeg {
  logIndex: number;
  pool: string;
  dex: 'uniswap_v2' | 'uniswap_v3';
  sender: string;
  recipient: string;
  /** Token paid into the pool and its amount (null when the event shows none). */
  sold: [string, bigint] | null;
  /** Token paid out of the pool and its amount. */
  bought: [string, bigint] | null;
}

/**
 * The leg of a v2 or v3 Swap event from a pool whose tokens are known: the token whose net
 * amount went into the pool was sold, the one that came out was bought.
 *
 * @example
 * swapLeg(ev, 3, { token0: usdc, token1: weth }) // { sold: [usdc, 1000n], bought: [weth, 5n], ... }
 */
export function swapLeg(
  ev: Extract<DecodedEvent, { kind: 'v2_swap' | 'v3_swap' }>,
  logIndex: number,
  tokens: PoolTokenPair,
): SwapLeg {
  const [d0, d1, recipient, dex] =
    ev.kind === 'v2_swap'
      ? [ev.amount0In - ev.amount0Out, ev.amount1In - ev.amount1Out, ev.to, 'uniswap_v2' as const]
      : [ev.amount0, ev.amount1, ev.recipient, 'uniswap_v3' as const];
  const side = (d: bigint, token: string, into: boolean): [string, bigint] | null =>
    into ? (d > 0n ? [token, d] : null) : d < 0n ? [token, -d] : null;
  return {
    logIndex,
    pool: ev.address,
    dex,
    sender: ev.sender,
    recipient,
    sold: side(d0, tokens.token0, true) ?? side(d1, tokens.token1, true),
    bought: side(d0, tokens.token0, false) ?? side(d1, tokens.token1, false),
  };
}

/**
 * What `trader` swapped according to the pools' own events, for transactions whose token flows
 * don't show both sides (e.g. tokens sent to a pair in an earlier transaction, then `swap()`
 * called directly): the first leg's input and the last leg's output. Undefined unless the trader
 * is a party of some leg and the route doesn't end where it started.
 *
 * @example
 * swapFromLegs(legs, tx.from) // { sold: [tokenA, 100n], bought: [tokenB, 97n] }
 */
export function swapFromLegs(
  legs: readonly SwapLeg[],
  trader: string,
): { sold: [string, bigint]; bought: [string, bigint] } | undefined {
  if (!legs.some((l) => l.sender === trader || l.recipient === trader)) return undefined;
  const sold = legs.find((l) => l.sold)?.sold;
  const bought = [...legs].reverse().find((l) => l.bought)?.bought;
  if (!sold || !bought || sold[0] === bought[0]) return undefined;
  return { sold, bought };
}

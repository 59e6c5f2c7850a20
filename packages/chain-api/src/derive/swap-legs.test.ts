import { describe, expect, it } from 'vitest';
import type { Addr } from '../decode/index.js';
import { swapFromLegs, swapLeg } from './swap-legs.js';

const A: Addr = '0x00000000000000000000000000000000000000aa';
const B: Addr = '0x00000000000000000000000000000000000000bb';
const C: Addr = '0x00000000000000000000000000000000000000cc';
const POOL: Addr = '0x0000000000000000000000000000000000000001';
const TRADER: Addr = '0x0000000000000000000000000000000000000077';
const ROUTER: Addr = '0x0000000000000000000000000000000000000099';

const v2 = (in0: bigint, in1: bigint, out0: bigint, out1: bigint, sender = TRADER, to = TRADER) =>
  ({
    kind: 'v2_swap',
    address: POOL,
    sender,
    to,
    amount0In: in0,
    amount1In: in1,
    amount0Out: out0,
    amount1Out: out1,
  }) as const;

describe('swapLeg', () => {
  it('v2: the token paid in was sold, the one paid out bought', () => {
    const leg = swapLeg(v2(100n, 0n, 0n, 97n), 4, { token0: A, token1: B });
    expect(leg).toMatchObject({
      sold: [A, 100n],
      bought: [B, 97n],
      dex: 'uniswap_v2',
      logIndex: 4,
    });
  });

  it('v3: positive amounts went into the pool', () => {
    const leg = swapLeg(
      {
        kind: 'v3_swap',
        address: POOL,
        sender: ROUTER,
        recipient: TRADER,
        amount0: -50n,
        amount1: 70n,
        sqrtPriceX96: 1n,
        liquidity: 1n,
        tick: 0,
      },
      1,
      { token0: A, token1: B },
    );
    expect(leg).toMatchObject({ sold: [B, 70n], bought: [A, 50n], dex: 'uniswap_v3' });
  });
});

describe('swapFromLegs', () => {
  it('first leg in, last leg out across a multi-hop route', () => {
    const legs = [
      swapLeg(v2(100n, 0n, 0n, 90n, ROUTER, POOL), 1, { token0: A, token1: B }),
      swapLeg(v2(90n, 0n, 0n, 80n, ROUTER, TRADER), 2, { token0: B, token1: C }),
    ];
    expect(swapFromLegs(legs, TRADER)).toEqual({ sold: [A, 100n], bought: [C, 80n] });
  });

  it('nothing when the trader is no party, or the route ends where it started', () => {
    const leg = swapLeg(v2(100n, 0n, 0n, 90n, ROUTER, ROUTER), 1, { token0: A, token1: B });
    expect(swapFromLegs([leg], TRADER)).toBeUndefined();
    const back = swapLeg(v2(0n, 90n, 95n, 0n, TRADER, TRADER), 2, { token0: A, token1: B });
    const there = swapLeg(v2(100n, 0n, 0n, 90n, TRADER, TRADER), 1, { token0: A, token1: B });
    expect(swapFromLegs([there, back], TRADER)).toBeUndefined();
  });
});

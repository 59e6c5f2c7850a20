import { BaseError } from '../errors/index.js';
import type { RpcClient } from '../rpc/create-rpc-client.js';
import { type CallResult, type ContractCall, readCalls } from '../rpc/read-calls.js';
import { RpcResponseError } from '../rpc/rpc-errors.js';
import { addressResult, int24Word, uintResult, words } from './abi-words.js';
import { decodeNpmPosition, defiCall, type NpmPosition } from './defi-probes.js';
import { amountsForLiquidity, type TickFeeGrowth, uncollectedFees } from './uniswap-v3-math.js';

/** Position contracts a wallet holds, already classified. Addresses lower-case. */
export interface ClassifiedHoldings {
  pairs: { address: string; token0: string; token1: string }[];
  vaults: { address: string; asset: string }[];
  managers: { address: string; factory: string; tokenIds: bigint[] }[];
}

/** A Uniswap-v2-style LP share: the wallet's part of the reserves (raw units, rounded down). */
export interface V2PositionState {
  kind: 'uniswap_v2';
  pair: string;
  token0: string;
  token1: string;
  lpBalance: bigint;
  totalSupply: bigint;
  amount0: bigint;
  amount1: bigint;
}

/** ERC-4626 shares and what they redeem for (raw units). */
export interface VaultPositionState {
  kind: 'erc4626';
  vault: string;
  asset: string;
  shares: bigint;
  assets: bigint;
  /** `previewRedeem(shares)`; null when the vault does not answer it. */
  previewRedeem: bigint | null;
}

/** One v3 position NFT at the pool's current price (raw units). */
export interface V3PositionState
  extends Pick<NpmPosition, 'token0' | 'token1' | 'fee' | 'tickLower' | 'tickUpper' | 'liquidity'> {
  kind: 'uniswap_v3';
  manager: string;
  factory: string;
  pool: string;
  tokenId: bigint;
  /** The pool's current tick. */
  tick: number;
  amount0: bigint;
  amount1: bigint;
  /** Uncollected fees (tokens owed + accrued); null when the pool's ticks could not be read. */
  fees0: bigint | null;
  fees1: bigint | null;
}

export type PositionState = V2PositionState | VaultPositionState | V3PositionState;

export interface PositionRead {
  positions: PositionState[];
  /** Contracts whose state the node could not give (not reverts): their positions are missing. */
  unreadable: string[];
}

/** The node answered none of the calls: it cannot serve state at that block (or at all). */
export class ChainStateUnavailableError extends BaseError<'CHAIN_STATE_UNAVAILABLE'> {
  override name = 'ChainStateUnavailableError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'CHAIN_STATE_UNAVAILABLE', cause: options.cause });
  }
}

/** Whether the node serves state at `block` at all (else every call there fails alike). */
async function assertStateAt(rpc: RpcClient, wallet: string, block: bigint): Promise<void> {
  try {
    await rpc.request('eth_getBalance', [wallet, `0x${block.toString(16)}`]);
  } catch (error) {
    if (!(error instanceof RpcResponseError)) throw error;
    throw new ChainStateUnavailableError(
      `the node has no state at block ${block}: ${error.message}`,
    );
  }
}

/**
 * Pool addresses by `factory|token0|token1|fee` on one chain: getPool's answer never changes once
 * non-zero (CREATE2), so the caller keeps one map per chain across requests.
 */
export type PoolAddressCache = Map<string, string>;

/** Entries kept per chain before the cache starts over (a few hundred bytes each). */
const MAX_CACHED_POOLS = 50_000;

/**
 * Reads the wallet's positions in `holdings` at `block`, in at most three rounds of calls
 * (balances and NFT positions; vault conversions and pool addresses; pool prices and ticks),
 * each through Multicall3 when given. Contracts that revert or answer garbage are simply not
 * positions; a node that answers nothing throws {@link ChainStateUnavailableError}.
 *
 * @example
 * const { positions } = await readPositions(rpc, multicall3, wallet, holdings, 1234n, pools);
 */
export async function readPositions(
  rpc: RpcClient,
  multicall3: string | null,
  wallet: string,
  holdings: ClassifiedHoldings,
  block: bigint,
  poolAddresses: PoolAddressCache = new Map(),
): Promise<PositionRead> {
  if (poolAddresses.size > MAX_CACHED_POOLS) poolAddresses.clear();
  const unreadable = new Set<string>();
  const round = async (calls: ContractCall[]): Promise<CallResult[]> => {
    const out = await readCalls(rpc, multicall3, calls, block);
    if (out.length > 0 && out.every((r) => r === undefined))
      await assertStateAt(rpc, wallet, block);
    out.forEach((r, i) => {
      if (r === undefined) unreadable.add(calls[i]!.to);
    });
    return out;
  };

  // Round 1: LP balances, supplies and reserves; vault shares; each held NFT's owner and position.
  const ids = holdings.managers.flatMap((m) => m.tokenIds.map((id) => ({ manager: m, id })));
  const r1 = await round([
    ...holdings.pairs.flatMap((p) => [
      defiCall(p.address, 'balanceOf', [wallet]),
      defiCall(p.address, 'totalSupply'),
      defiCall(p.address, 'getReserves'),
    ]),
    ...holdings.vaults.map((v) => defiCall(v.address, 'balanceOf', [wallet])),
    ...ids.flatMap(({ manager, id }) => [
      defiCall(manager.address, 'ownerOf', [id]),
      defiCall(manager.address, 'positions', [id]),
    ]),
  ]);
  const positions: PositionState[] = [];
  holdings.pairs.forEach((p, i) => {
    const lpBalance = uintResult(r1[3 * i]);
    const totalSupply = uintResult(r1[3 * i + 1]);
    const reserves = words(r1[3 * i + 2], 2);
    if (!lpBalance || !totalSupply || !reserves || lpBalance > totalSupply) return;
    const [reserve0, reserve1] = reserves as [bigint, bigint];
    positions.push({
      kind: 'uniswap_v2',
      pair: p.address,
      token0: p.token0,
      token1: p.token1,
      lpBalance,
      totalSupply,
      amount0: (reserve0 * lpBalance) / totalSupply,
      amount1: (reserve1 * lpBalance) / totalSupply,
    });
  });
  let k = 3 * holdings.pairs.length;
  const vaults = holdings.vaults
    .map((v) => ({ ...v, shares: uintResult(r1[k++]) }))
    .filter((v): v is typeof v & { shares: bigint } => !!v.shares);
  const held: { manager: (typeof ids)[number]['manager']; id: bigint; position: NpmPosition }[] =
    [];
  for (const { manager, id } of ids) {
    const owner = addressResult(r1[k++]);
    const position = decodeNpmPosition(r1[k++]);
    // Held at this block, and not a closed position (no liquidity, nothing owed).
    if (owner !== wallet || !position) continue;
    if (position.liquidity === 0n && position.tokensOwed0 === 0n && position.tokensOwed1 === 0n) {
      continue;
    }
    held.push({ manager, id, position });
  }

  // Round 2: what the vault shares are worth; pool addresses not known yet.
  const poolKey = (f: string, p: NpmPosition) => `${f}|${p.token0}|${p.token1}|${p.fee}`;
  const missing = [
    ...new Map(
      held
        .filter(({ manager, position }) => !poolAddresses.has(poolKey(manager.factory, position)))
        .map(({ manager, position }) => [
          poolKey(manager.factory, position),
          { manager, position },
        ]),
    ).entries(),
  ];
  const r2 = await round([
    ...vaults.flatMap((v) => [
      defiCall(v.address, 'convertToAssets', [v.shares]),
      defiCall(v.address, 'previewRedeem', [v.shares]),
    ]),
    ...missing.map(([, { manager, position: p }]) =>
      defiCall(manager.factory, 'getPool', [p.token0, p.token1, p.fee]),
    ),
  ]);
  vaults.forEach((v, i) => {
    const assets = uintResult(r2[2 * i]);
    if (assets === null) return; // convertToAssets reverted or lied: not a readable vault
    positions.push({
      kind: 'erc4626',
      vault: v.address,
      asset: v.asset,
      shares: v.shares,
      assets,
      previewRedeem: uintResult(r2[2 * i + 1]),
    });
  });
  missing.forEach(([key], i) => {
    const pool = addressResult(r2[2 * vaults.length + i]);
    if (pool) poolAddresses.set(key, pool);
  });

  // Round 3: each pool's price and fee growth, and the fee growth outside each range's ticks.
  const withPool = held.flatMap((h) => {
    const pool = poolAddresses.get(poolKey(h.manager.factory, h.position));
    return pool ? [{ ...h, pool }] : [];
  });
  const pools = [...new Set(withPool.map((h) => h.pool))];
  const tickKeys = [
    ...new Set(
      withPool.flatMap((h) => [
        `${h.pool}|${h.position.tickLower}`,
        `${h.pool}|${h.position.tickUpper}`,
      ]),
    ),
  ];
  const r3 = await round([
    ...pools.flatMap((pool) => [
      defiCall(pool, 'slot0'),
      defiCall(pool, 'feeGrowthGlobal0X128'),
      defiCall(pool, 'feeGrowthGlobal1X128'),
    ]),
    ...tickKeys.map((key) => {
      const [pool, tick] = key.split('|') as [string, string];
      return defiCall(pool, 'ticks', [Number(tick)]);
    }),
  ]);
  const poolState = new Map(
    pools.map((pool, i) => {
      const slot0 = words(r3[3 * i], 2);
      const tick = int24Word(slot0?.[1]);
      const sqrtPriceX96 = slot0?.[0];
      const valid = sqrtPriceX96 !== undefined && sqrtPriceX96 > 0n && sqrtPriceX96 < 1n << 160n;
      return [
        pool,
        valid && tick !== null
          ? {
              sqrtPriceX96,
              tick,
              feeGrowthGlobal0X128: uintResult(r3[3 * i + 1]),
              feeGrowthGlobal1X128: uintResult(r3[3 * i + 2]),
            }
          : null,
      ] as const;
    }),
  );
  const ticks = new Map<string, TickFeeGrowth | null>(
    tickKeys.map((key, i) => {
      const w = words(r3[3 * pools.length + i], 4);
      return [key, w ? { feeGrowthOutside0X128: w[2]!, feeGrowthOutside1X128: w[3]! } : null];
    }),
  );
  for (const { manager, id, position: p, pool } of withPool) {
    const state = poolState.get(pool);
    if (!state) continue;
    const [amount0, amount1] = amountsForLiquidity(
      state.sqrtPriceX96,
      p.tickLower,
      p.tickUpper,
      p.liquidity,
    );
    const lower = ticks.get(`${pool}|${p.tickLower}`);
    const upper = ticks.get(`${pool}|${p.tickUpper}`);
    const fees =
      lower && upper && state.feeGrowthGlobal0X128 !== null && state.feeGrowthGlobal1X128 !== null
        ? uncollectedFees(p, {
            tick: state.tick,
            feeGrowthGlobal0X128: state.feeGrowthGlobal0X128,
            feeGrowthGlobal1X128: state.feeGrowthGlobal1X128,
            lower,
            upper,
          })
        : null;
    positions.push({
      kind: 'uniswap_v3',
      manager: manager.address,
      factory: manager.factory,
      pool,
      tokenId: id,
      token0: p.token0,
      token1: p.token1,
      fee: p.fee,
      tickLower: p.tickLower,
      tickUpper: p.tickUpper,
      liquidity: p.liquidity,
      tick: state.tick,
      amount0,
      amount1,
      fees0: fees?.[0] ?? null,
      fees1: fees?.[1] ?? null,
    });
  }
  return { positions, unreadable: [...unreadable] };
}

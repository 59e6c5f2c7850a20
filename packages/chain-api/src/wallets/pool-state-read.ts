import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { PoolState } from '../derive/index.js';
import { BaseError } from '../errors/index.js';
import type { RpcClient } from '../rpc/index.js';
import { type CallResult, type ContractCall, readCalls } from '../rpc/read-calls.js';
import type { FoundPool } from './pool-scan.js';

const abi = parseAbi([
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)',
  'function liquidity() view returns (uint128)',
  'function balanceOf(address) view returns (uint256)',
]);
const GET_RESERVES = encodeFunctionData({ abi, functionName: 'getReserves' });
const SLOT0 = encodeFunctionData({ abi, functionName: 'slot0' });
const LIQUIDITY = encodeFunctionData({ abi, functionName: 'liquidity' });

/** A call the node could not run (not a revert): nothing can be concluded, read again later. */
export class PoolReadError extends BaseError<'POOL_READ_FAILED'> {
  override name = 'PoolReadError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'POOL_READ_FAILED', cause: options.cause });
  }
}

/** Pools read at one block: their rows (state null when never synced/initialized) and held tokens. */
export interface PoolReads {
  pools: PoolState[];
  /** v3 pools' `balanceOf(pool)` of token0/token1 (what full mode's erc20_balances hold). */
  held: { pool: string; token: string; amount: bigint }[];
}

function decoded<T>(
  r: CallResult,
  fn: 'getReserves' | 'slot0' | 'liquidity' | 'balanceOf',
): T | null {
  if (r === undefined) throw new PoolReadError(`${fn}: the node could not run the call`);
  if (r === null || r === '0x') return null;
  try {
    return decodeFunctionResult({ abi, functionName: fn, data: r as Hex }) as T;
  } catch {
    return null;
  }
}

/**
 * Reads the state of `pools` at `block` through Multicall3: v2 `getReserves`, v3 `slot0` and
 * `liquidity`, and v3 pools' token balances. The rows equal what the follower's event replay
 * gives (Sync carries the reserves; Swap the price, tick and active liquidity; Mint/Burn the
 * liquidity in range): a pair never synced (reserves 0/0) and a pool never initialized (price 0)
 * get no state, like in full mode. Throws PoolReadError when the node could not run a call.
 *
 * @example
 * const { pools, held } = await readPoolStates(rpc, multicall3, found, 1234n, blockTime);
 */
export async function readPoolStates(
  rpc: RpcClient,
  multicall3: string | null,
  found: readonly FoundPool[],
  block: bigint,
  time: Date,
): Promise<PoolReads> {
  const calls: ContractCall[] = [];
  for (const p of found) {
    if (p.dex === 'uniswap_v2') calls.push({ to: p.address, data: GET_RESERVES });
    else calls.push({ to: p.address, data: SLOT0 }, { to: p.address, data: LIQUIDITY });
  }
  const v3 = found.filter((p) => p.dex === 'uniswap_v3');
  const pairs = v3.flatMap((p) => [
    { token: p.token0, wallet: p.address },
    { token: p.token1, wallet: p.address },
  ]);
  // Not readBalances: it answers null for a node error too, and a missing held balance would cap
  // the pool's depth at 0 for good.
  const balanceCalls = pairs.map((x) => ({
    to: x.token,
    data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [x.wallet as Hex] }),
  }));
  const [results, balances] = await Promise.all([
    readCalls(rpc, multicall3, calls, block),
    readCalls(rpc, multicall3, balanceCalls, block),
  ]);
  const pools: PoolState[] = [];
  let i = 0;
  for (const p of found) {
    const row: PoolState = {
      ...p,
      reserve0: null,
      reserve1: null,
      sqrtPriceX96: null,
      tick: null,
      liquidity: p.dex === 'uniswap_v3' ? 0n : null,
      updatedBlock: null,
      updatedTime: null,
    };
    if (p.dex === 'uniswap_v2') {
      const r = decoded<readonly [bigint, bigint, number]>(results[i++], 'getReserves');
      if (r && (r[0] > 0n || r[1] > 0n)) {
        row.reserve0 = r[0];
        row.reserve1 = r[1];
      }
    } else {
      const s = decoded<readonly [bigint, number]>(results[i++], 'slot0');
      const l = decoded<bigint>(results[i++], 'liquidity');
      if (s && s[0] > 0n) {
        row.sqrtPriceX96 = s[0];
        row.tick = Number(s[1]);
        row.liquidity = l ?? 0n;
      }
    }
    if (row.reserve0 !== null || row.sqrtPriceX96 !== null) {
      row.updatedBlock = block;
      row.updatedTime = time;
    }
    pools.push(row);
  }
  const held: PoolReads['held'] = [];
  pairs.forEach((pair, k) => {
    const amount = decoded<bigint>(balances[k], 'balanceOf');
    // Full mode keeps no row for a token the pool never received (balance 0).
    if (amount !== null && amount !== undefined && amount > 0n)
      held.push({ pool: pair.wallet, token: pair.token, amount });
  });
  return { pools, held };
}

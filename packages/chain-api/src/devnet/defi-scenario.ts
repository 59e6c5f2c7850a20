import { decodeEventLog, maxUint256, parseEther, parseUnits, zeroAddress } from 'viem';
import type { Address } from '../chains/chain-config.js';
import { DEVNET_WALLETS } from './accounts.js';
import { ScenarioError } from './errors.js';
import type { DevnetDefi } from './manifest.js';
import type { ScenarioClient } from './scenario-client.js';

const DEADLINE = 2n ** 40n;
const TICK_SPACING = 60; // the 0.3% tier

/** What the DeFi step builds on: the scenario's tokens, pools and Uniswap v3 contracts. */
export interface DefiScenarioInput {
  weth: Address;
  wbtc: Address;
  usdc: Address;
  v3Factory: Address;
  v3Helper: Address;
  /** The WBTC/WETH 0.3% pool, already holding full-range liquidity. */
  v3Pool: Address;
  /** A v2 pair the `lp` wallet provided liquidity to (some of its LP tokens go to alice). */
  v2Pair: Address;
}

/**
 * The scenario's DeFi positions, all held by alice so the demo wallet shows every kind:
 * - two Uniswap v3 positions through a NonfungiblePositionManager (from @uniswap/v3-periphery's
 *   published build) on the WBTC/WETH pool: one around the price, which then earns fees from a
 *   whale's round trip, and one above it (out of range, token0 only);
 * - shares of an OpenZeppelin ERC-4626 vault on USDC that then receives yield;
 * - 1% of the `lp` wallet's LP tokens of `v2Pair`.
 *
 * @example
 * const defi = await deployDefiScenario(ctx, { weth, wbtc, usdc, v3Factory, v3Helper, v3Pool, v2Pair });
 */
export async function deployDefiScenario(
  ctx: ScenarioClient,
  input: DefiScenarioInput,
): Promise<DevnetDefi> {
  const { deployer: d, alice, lp, whale } = DEVNET_WALLETS;
  const npm = await ctx.deploy(
    'deploy NonfungiblePositionManager',
    d,
    'NonfungiblePositionManager',
    [
      input.v3Factory,
      input.weth,
      zeroAddress, // no token descriptor: tokenURI reverts, as on forks that ship none
    ],
  );
  const vault = await ctx.deploy('deploy DevVault', d, 'DevVault', [
    input.usdc,
    'Sluice USDC Vault',
    'svUSDC',
  ]);

  // v3: alice provides liquidity through the position manager.
  await ctx.write('alice wraps ETH', alice, input.weth, 'WETH9', 'deposit', [], parseEther('15'));
  await ctx.write('alice approves npm WETH', alice, input.weth, 'WETH9', 'approve', [
    npm,
    maxUint256,
  ]);
  await ctx.write('alice approves npm WBTC', alice, input.wbtc, 'DevToken', 'approve', [
    npm,
    maxUint256,
  ]);
  const [, tick] = await ctx.read<readonly [bigint, number]>(
    input.v3Pool,
    'UniswapV3Pool',
    'slot0',
  );
  const base = Math.floor(tick / TICK_SPACING) * TICK_SPACING;
  const [token0, token1] =
    input.wbtc < input.weth ? [input.wbtc, input.weth] : [input.weth, input.wbtc];
  const amountOf = (token: Address, wbtc: string, weth: string) =>
    token === input.wbtc ? parseUnits(wbtc, 8) : parseEther(weth);
  const mint = async (step: string, tickLower: number, tickUpper: number) => {
    const receipt = await ctx.write(step, alice, npm, 'NonfungiblePositionManager', 'mint', [
      {
        token0,
        token1,
        fee: 3000,
        tickLower,
        tickUpper,
        amount0Desired: amountOf(token0, '0.5', '10'),
        amount1Desired: amountOf(token1, '0.5', '10'),
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: alice,
        deadline: DEADLINE,
      },
    ]);
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== npm) continue;
      const event = decodeEventLog({
        abi: ctx.abi('NonfungiblePositionManager'),
        ...log,
        strict: false,
      });
      if (event.eventName === 'IncreaseLiquidity') {
        return {
          tokenId: String((event.args as unknown as { tokenId: bigint }).tokenId),
          tickLower,
          tickUpper,
        };
      }
    }
    throw new ScenarioError(`${step}: no IncreaseLiquidity event`);
  };
  const inRange = await mint(
    'alice mints v3 position',
    base - 20 * TICK_SPACING,
    base + 20 * TICK_SPACING,
  );
  const outOfRange = await mint(
    'alice mints out-of-range v3 position',
    base + 30 * TICK_SPACING,
    base + 50 * TICK_SPACING,
  );
  // Fees in both tokens for the in-range position: a whale buys WBTC with WETH on the pool and
  // sells it all back, which leaves the price where it was (within the fees).
  await ctx.write('whale wraps ETH', whale, input.weth, 'WETH9', 'deposit', [], parseEther('10'));
  for (const token of [input.weth, input.wbtc]) {
    await ctx.write('whale approves helper', whale, token, 'DevToken', 'approve', [
      input.v3Helper,
      maxUint256,
    ]);
  }
  const wbtcBefore = await ctx.read<bigint>(input.wbtc, 'DevToken', 'balanceOf', [whale]);
  await ctx.write('whale buys WBTC on v3', whale, input.v3Helper, 'V3Helper', 'swapExactIn', [
    input.v3Pool,
    token0 === input.weth,
    parseEther('5'),
    whale,
  ]);
  const bought =
    (await ctx.read<bigint>(input.wbtc, 'DevToken', 'balanceOf', [whale])) - wbtcBefore;
  await ctx.write('whale sells WBTC on v3', whale, input.v3Helper, 'V3Helper', 'swapExactIn', [
    input.v3Pool,
    token0 === input.wbtc,
    bought,
    whale,
  ]);

  // ERC-4626: alice deposits USDC, then the vault earns 2.5%.
  await ctx.write('alice approves vault', alice, input.usdc, 'DevToken', 'approve', [
    vault,
    maxUint256,
  ]);
  await ctx.write('alice deposits into vault', alice, vault, 'DevVault', 'deposit', [
    parseUnits('10000', 6),
    alice,
  ]);
  await ctx.write('vault earns yield', d, input.usdc, 'DevToken', 'mint', [
    vault,
    parseUnits('250', 6),
  ]);

  // v2: alice receives 1% of the lp wallet's LP tokens.
  const lpBalance = await ctx.read<bigint>(input.v2Pair, 'UniswapV2Pair', 'balanceOf', [lp]);
  await ctx.write('lp gives alice LP tokens', lp, input.v2Pair, 'UniswapV2Pair', 'transfer', [
    alice,
    lpBalance / 100n,
  ]);

  return {
    positionManager: npm,
    vault,
    v2Pair: input.v2Pair,
    v3Positions: [inRange, outOfRange].map((p) => ({ ...p, owner: alice, pool: input.v3Pool })),
  };
}

/**
 * Does pricing slow the indexer down? Indexes the same history into fresh PostgreSQL schemas with
 * and without the pricing worker running in the same process (default 500 ms poll, as `serve` runs
 * it), alternating, and prints decoded events/s side by side, plus the time pricing needs for the
 * whole history on its own.
 *
 *   npx tsx bench/pricing-overhead-bench.ts [--dense] [--blocks 150] [--transfers 60] [--swaps 15] [--rounds 3]
 *
 * History, default (swap-heavy): the devnet scenario, then `--blocks` blocks each holding
 * `--transfers` USDC transfers to 1,000 wallets and `--swaps` router swaps over USDC/WETH and
 * WETH/SLC. `--dense`: the indexer benchmark's dense history (bench/dense-history.ts defaults:
 * 100,000 ERC20 transfers, 2,000 NFT mints, 200 swaps).
 */
import { migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { type Address, createWalletClient, encodeFunctionData, http, parseAbi } from 'viem';
import { foundry } from 'viem/chains';
import { type Devnet, startDevnet } from '../src/devnet/index.js';
import { indexOnce } from '../src/ingest/index.js';
import { pricingMigrations, startPricing } from '../src/pricing/index.js';
import { chainMigrations } from '../src/store/index.js';
import { buildDenseHistory } from './dense-history.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
}
const BLOCKS = arg('blocks', 150);
const TRANSFERS = arg('transfers', 60);
const SWAPS = arg('swaps', 15);
const ROUNDS = arg('rounds', 3);
const DENSE = process.argv.includes('--dense');

const erc20 = parseAbi([
  'function transfer(address, uint256) returns (bool)',
  'function approve(address, uint256) returns (bool)',
]);
const router = parseAbi([
  'function swapExactTokensForTokens(uint256, uint256, address[], address, uint256) returns (uint256[])',
]);

const log = pino({ level: 'silent' });

/** The swap-heavy history on a fresh devnet. */
async function swapHeavyHistory(): Promise<Devnet> {
  const devnet = await startDevnet({ trickle: false });
  const { manifest } = devnet;
  const wallet = createWalletClient({ chain: foundry, transport: http(devnet.rpcUrl) });
  const rpc = (method: string, params: unknown[] = []) =>
    wallet.request({ method: method as never, params: params as never });
  const whale = manifest.wallets.whale;
  const { usdc, weth, slc } = manifest.tokens;
  const r = manifest.contracts.uniswapV2Router;
  await rpc('anvil_impersonateAccount', [whale]);
  const send = (to: Address, data: `0x${string}`) =>
    rpc('eth_sendTransaction', [{ from: whale, to, data, gas: '0x493e0' }]);
  for (const token of [usdc.address, weth.address, slc.address]) {
    await send(
      token,
      encodeFunctionData({ abi: erc20, functionName: 'approve', args: [r, 2n ** 255n] }),
    );
  }
  // a first USDC -> WETH buy so the whale holds WETH to sell
  const swap = (path: Address[], amount: bigint) =>
    send(
      r,
      encodeFunctionData({
        abi: router,
        functionName: 'swapExactTokensForTokens',
        args: [amount, 0n, path, whale, 2n ** 64n],
      }),
    );
  await swap([usdc.address, weth.address], 200_000n * 10n ** 6n);
  await rpc('evm_setAutomine', [false]);
  const genStart = performance.now();
  const paths: [Address[], bigint][] = [
    [[usdc.address, weth.address], 2_000n * 10n ** 6n],
    [[weth.address, usdc.address], 10n ** 18n / 2n],
    [[weth.address, slc.address], 10n ** 18n / 4n],
    [[slc.address, weth.address], 300n * 10n ** 18n],
  ];
  for (let b = 0; b < BLOCKS; b++) {
    for (let i = 0; i < TRANSFERS; i++) {
      const to =
        `0x${(0x100000 + ((b * TRANSFERS + i) % 1000)).toString(16).padStart(40, '0')}` as Address;
      await send(
        usdc.address,
        encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, 1_000_000n] }),
      );
    }
    for (let i = 0; i < SWAPS; i++) {
      const [path, amount] = paths[(b + i) % paths.length]!;
      await swap(path, amount);
    }
    await rpc('evm_mine');
  }
  await rpc('evm_setAutomine', [true]);
  console.log(
    `history: scenario + ${BLOCKS} blocks x (${TRANSFERS} transfers + ${SWAPS} swaps), generated in ${((performance.now() - genStart) / 1000).toFixed(1)} s`,
  );
  return devnet;
}

async function denseHistory(): Promise<Devnet> {
  const h = await buildDenseHistory({
    transfers: 100_000,
    walletCount: 1_000,
    perTx: 200,
    txPerBlock: 2,
    nftMints: 2_000,
    swaps: 200,
  });
  console.log(
    `history: the indexer benchmark's dense history (${h.erc20Transfers} transfers, ${h.nftMints} NFT mints, ${h.swaps} swaps)`,
  );
  return h.devnet;
}

const devnet = DENSE ? await denseHistory() : await swapHeavyHistory();
try {
  const results: Record<'off' | 'on', number[]> = { off: [], on: [] };
  const catchUp: number[] = [];
  const serialShare: number[] = [];
  const pricingAlone: number[] = [];
  let events = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['off', 'on'] as const) {
      const t = await createTestDatabase('postgres');
      try {
        await migrate(t.db, [...chainMigrations, ...pricingMigrations]);
        const pricing =
          mode === 'on' ? await startPricing({ db: t.db, chains: [devnet.chain], log }) : null;
        const start = performance.now();
        const [stats] = await indexOnce({ db: t.db, chains: [devnet.chain], log });
        const seconds = (performance.now() - start) / 1000;
        events = stats?.events ?? 0;
        results[mode].push(events / seconds);
        if (pricing) {
          const s = performance.now();
          await pricing.runOnce(); // what is left after the indexer finished
          catchUp.push((performance.now() - s) / 1000);
          await pricing.stop();
        } else {
          // Pricing the finished index from scratch, alone: its full cost, free of any overlap.
          const s = performance.now();
          const worker = await startPricing({
            db: t.db,
            chains: [devnet.chain],
            log,
            intervalMs: 3_600_000,
          });
          await worker.runOnce(); // queued behind the initial run, which prices everything
          const p = (performance.now() - s) / 1000;
          await worker.stop();
          pricingAlone.push(p);
          serialShare.push(p / seconds);
        }
      } finally {
        await t.drop();
      }
    }
  }
  const median = (v: number[]) =>
    [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? Number.NaN;
  const off = median(results.off);
  const on = median(results.on);
  console.log(
    `indexer alone:             ${Math.round(off)} events/s (${events} events; runs ${results.off.map(Math.round).join(', ')})`,
  );
  console.log(
    `indexer + pricing worker:  ${Math.round(on)} events/s (runs ${results.on.map(Math.round).join(', ')})`,
  );
  console.log(
    `concurrent: ${(((off - on) / off) * 100).toFixed(1)}% fewer events/s with pricing on (negative = noise); pricing done ${median(catchUp).toFixed(2)} s after the indexer`,
  );
  console.log(
    `serialized: pricing the whole indexed history alone takes ${median(pricingAlone).toFixed(2)} s = ${(median(serialShare) * 100).toFixed(1)}% of the indexer's time for it (runs ${serialShare.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')})`,
  );
} finally {
  await devnet.stop();
}

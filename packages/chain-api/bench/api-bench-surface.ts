import type { Queryable } from '@sluice/db';
import { insertBlocks, insertTransactions } from '../test/support/seed-chain.js';
import { addr, insertErc20Balances, insertTokens, txHash } from '../test/support/seed-store.js';
import type { BenchStore } from './seed-bench-store.js';

/**
 * Rows of the API benchmark for the later endpoints (kept apart from api-bench.ts so other additions merge
 * cleanly): /transactions, /token-info, /token-holders, /balances/{address}/stablecoins,
 * /search/tokens, balances at a past block and the portfolio series.
 */

/** One benchmark case: a fixed path or one picked per request. */
export interface BenchCase {
  name: string;
  path: string | (() => string);
}

const chainId = 1;
const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const dai = '0x6b175474e89094c44da98b954eedeac495271d0f';

/** What these rows read beyond the base bench store. */
export interface SurfaceStore {
  /** A token with `holders` holders (token-holders paging). */
  holderToken: `0x${string}`;
  /** A block inside the heavy wallet's activity (balances at a past block). */
  pastBlock: number;
}

/**
 * Seeds what these endpoints read: block headers under the heavy wallet's activity (one per
 * activity block, plus one an hour for the 30 days before it, so the portfolio has daily blocks),
 * `transactions` heavy-wallet transactions, `holders` holders of one token, and two stablecoin
 * balances of the heavy wallet.
 *
 * @example
 * const surface = await seedSurfaceStore(t.db, store);
 */
export async function seedSurfaceStore(
  db: Queryable,
  store: BenchStore,
  opts: { transactions?: number; holders?: number } = {},
): Promise<SurfaceStore> {
  const now = Math.floor(Date.now() / 1000);
  // The heavy wallet's activity sits at blocks 1,000,000 + i, time now - (10,000 - i) * 12.
  const heavyStart = now - 10_000 * 12;
  const blocks = [
    ...Array.from({ length: 720 }, (_, k) => ({
      chainId,
      number: 1_000_000 - 720 + k,
      time: heavyStart - (720 - k) * 3600,
    })),
    ...Array.from({ length: 10_000 }, (_, i) => ({
      chainId,
      number: 1_000_000 + i,
      time: now - (10_000 - i) * 12,
    })),
  ];
  await insertBlocks(db, blocks);
  const txCount = opts.transactions ?? 1_200;
  await insertTransactions(
    db,
    Array.from({ length: txCount }, (_, i) => ({
      chainId,
      blockNumber: 1_000_000 + (i % 10_000),
      txIndex: 100 + Math.floor(i / 10_000),
      hash: txHash(5_000_000 + i),
      from: i % 2 === 0 ? store.heavy : addr('tx-peer', i % 50),
      to: i % 2 === 0 ? addr('tx-peer', i % 50) : store.heavy,
      value: String(10n ** 15n * BigInt(i + 1)),
      input: i % 3 === 0 ? '0x' : '0xa9059cbb',
    })),
  );
  const holderToken = store.tokens[999]!.address;
  const holders = opts.holders ?? 2_000;
  await insertErc20Balances(
    db,
    Array.from({ length: holders }, (_, i) => ({
      chainId,
      wallet: addr('bench-holder', i),
      token: holderToken,
      amount: String(BigInt((i * 7919) % 997) * 10n ** 18n + BigInt(i)),
    })),
  );
  await insertTokens(db, [
    { chainId, address: usdc, standard: 'erc20', name: 'USD Coin', symbol: 'USDC', decimals: 6 },
    { chainId, address: dai, standard: 'erc20', name: 'Dai', symbol: 'DAI', decimals: 18 },
  ]);
  await insertErc20Balances(db, [
    { chainId, wallet: store.heavy, token: usdc, amount: '2500000000' },
    { chainId, wallet: store.heavy, token: dai, amount: (10n ** 21n).toString() },
  ]);
  await db.query('analyze');
  return { holderToken, pastBlock: 1_005_000 };
}

/**
 * The cases: first pages and deep pages where the endpoint pages (`cursorAfter` walks the
 * cursor chain the way a client does).
 *
 * @example
 * cases.push(...(await surfaceCases(store, surface, (path, pages) => cursorAfterPages(base, key, path, pages))));
 */
export async function surfaceCases(
  store: BenchStore,
  surface: SurfaceStore,
  cursorAfter: (path: string, pages: number) => Promise<string>,
): Promise<BenchCase[]> {
  const h = store.heavy;
  const transactions = `/v1/evm/transactions/${h}?limit=20`;
  const holders = `/v1/evm/token-holders/${chainId}/${surface.holderToken}?limit=100`;
  const past = `/v1/evm/balances/${h}?chain_ids=${chainId}&block_number=${surface.pastBlock}`;
  const past10 = `${past}&limit=10`;
  const deep = {
    transactions: await cursorAfter(transactions, 49),
    holders: await cursorAfter(holders, 5),
    past: await cursorAfter(past10, 99),
  };
  return [
    { name: 'transactions, first page (20)', path: transactions },
    { name: 'transactions, page 50 (20)', path: `${transactions}&offset=${deep.transactions}` },
    {
      name: 'token-info (priced ERC20, 8 days of history)',
      path: `/v1/evm/token-info/${store.tokens[500]!.address}?chain_ids=${chainId}&historical_prices=1,24,168`,
    },
    { name: 'token-holders, first page (100)', path: holders },
    { name: 'token-holders, 500 holders deep (100)', path: `${holders}&offset=${deep.holders}` },
    { name: 'stablecoins (heavy wallet)', path: `/v1/evm/balances/${h}/stablecoins` },
    { name: 'search/tokens "tk12"', path: '/v1/evm/search/tokens?query=tk12' },
    { name: 'balances at a past block, 1,000 tokens (one page)', path: past },
    { name: 'balances at a past block, first page (10)', path: past10 },
    { name: 'balances at a past block, page 100 (10)', path: `${past10}&offset=${deep.past}` },
    {
      name: 'balances as_of a time (first page, 10)',
      path: `/v1/evm/balances/${h}?chain_ids=${chainId}&as_of=${Math.floor(Date.now() / 1000) - 3600 * 24}&limit=10`,
    },
    {
      name: 'portfolio, 30 days, 1,000 tokens',
      path: `/v1/evm/portfolio/${h}?chain_ids=${chainId}`,
    },
    {
      name: 'portfolio, 7 days, light wallets',
      path: () =>
        `/v1/evm/portfolio/${store.light[Math.floor(Math.random() * store.light.length)]}?chain_ids=${chainId}&days=7`,
    },
  ];
}

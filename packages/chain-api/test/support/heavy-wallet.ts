import type { Queryable } from '@sluice/db';
import { insertBlocks, insertLogs, insertTransactions } from './seed-chain.js';
import {
  addr,
  insertActivity,
  insertErc20Balances,
  insertNativeBalances,
  insertTokens,
  type SeedActivity,
  setCheckpoint,
  txHash,
} from './seed-store.js';

/**
 * A store holding the wallets of the "unbounded work" triggers on chain 31337: one block per day
 * over the last `days` days; a spam wallet holding `spamTokens` never-priced tokens (each received
 * at the first block and airdropped again twice later, so its history after any block is long)
 * and one priced token whose address sorts after all of them; a light wallet with a few priced
 * tokens (the other key's reads); optionally one transaction of the spam wallet with `logs` logs.
 */
export interface HeavyStore {
  chainId: number;
  spamWallet: string;
  lightWallet: string;
  pricedToken: string;
  /** Block numbers: first (day 0) and head. */
  firstBlock: number;
  headBlock: number;
  /** Hash of the transaction with many logs (when seeded). */
  logsTx?: string;
}

export const HEAVY_CHAIN = 31337;

export async function seedHeavyStore(
  db: Queryable,
  opts: { spamTokens: number; days?: number; logs?: number; now?: number },
): Promise<HeavyStore> {
  const chainId = HEAVY_CHAIN;
  const days = opts.days ?? 366;
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const blocks = Array.from({ length: days }, (_, i) => ({
    chainId,
    number: i + 1,
    time: now - (days - 1 - i) * 86_400 - 60,
  }));
  await insertBlocks(db, blocks);
  const headBlock = days;
  await setCheckpoint(db, chainId, { indexedBlock: headBlock, backfillDone: true });
  const spamWallet = addr('heavy-spam-wallet');
  const lightWallet = addr('heavy-light-wallet');
  const pricedToken = addr('zz-heavy-priced');
  const spam = Array.from({ length: opts.spamTokens }, (_, i) => addr('spam', i));
  const lightTokens = Array.from({ length: 5 }, (_, i) => addr('zz-light', i));
  await insertTokens(db, [
    ...spam.map((address, i) => ({
      chainId,
      address,
      standard: 'erc20' as const,
      name: `Spam ${i}`,
      symbol: 'SPAM',
      decimals: 18,
    })),
    ...[pricedToken, ...lightTokens].map((address, i) => ({
      chainId,
      address,
      standard: 'erc20' as const,
      name: `Priced ${i}`,
      symbol: `P${i}`,
      decimals: 18,
    })),
  ]);
  const activity: SeedActivity[] = [];
  let n = 0;
  const receive = (wallet: string, token: string, block: number, value: bigint) => {
    const b = blocks[block - 1] as { time: number };
    n++;
    activity.push({
      chainId,
      wallet,
      blockTime: b.time,
      blockNumber: block,
      txIndex: n % 1000,
      logIndex: Math.floor(n / 1000),
      txHash: txHash(n),
      type: 'receive',
      assetType: 'erc20',
      tokenAddress: token,
      value: value.toString(),
    });
  };
  spam.forEach((token, i) => {
    receive(spamWallet, token, 1, 1000n);
    receive(spamWallet, token, 2 + (i % Math.max(1, days - 2)), 10n);
    receive(spamWallet, token, days, 10n);
  });
  receive(spamWallet, pricedToken, 1, 5n * 10n ** 18n);
  for (const token of lightTokens) receive(lightWallet, token, 1, 10n ** 18n);
  await insertActivity(db, activity);
  await insertErc20Balances(db, [
    ...spam.map((token) => ({ chainId, wallet: spamWallet, token, amount: '1020' })),
    { chainId, wallet: spamWallet, token: pricedToken, amount: (5n * 10n ** 18n).toString() },
    ...lightTokens.map((token) => ({
      chainId,
      wallet: lightWallet,
      token,
      amount: (10n ** 18n).toString(),
    })),
  ]);
  await insertNativeBalances(db, [
    { chainId, wallet: spamWallet, amount: '1' },
    { chainId, wallet: lightWallet, amount: '1' },
  ]);
  await db.query(
    `insert into pricing_cursors (chain_id, last_block, wrapped_native, stablecoins)
     values ($1, $2, null, '{}') on conflict do nothing`,
    [chainId, headBlock],
  );
  for (const token of [pricedToken, ...lightTokens]) {
    await db.query(
      `insert into price_history (chain_id, token, block_number, time, price_usd, quote, price_in_quote)
       values ($1, $2, 1, to_timestamp($3), 2, 'usd', 2)`,
      [chainId, token, (blocks[0] as { time: number }).time],
    );
  }
  const store: HeavyStore = {
    chainId,
    spamWallet,
    lightWallet,
    pricedToken,
    firstBlock: 1,
    headBlock,
  };
  if (opts.logs) store.logsTx = await seedLogsTransaction(db, spamWallet, headBlock, opts.logs);
  return store;
}

/** One transaction sent by `from` in `block`, emitting `count` logs. */
async function seedLogsTransaction(
  db: Queryable,
  from: string,
  block: number,
  count: number,
): Promise<string> {
  const hash = txHash(9_000_000);
  await insertTransactions(db, [
    { chainId: HEAVY_CHAIN, blockNumber: block, txIndex: 0, hash, from, to: addr('log-spammer') },
  ]);
  const topic = `0x${'ab'.repeat(32)}`;
  for (let i = 0; i < count; i += 20_000) {
    const size = Math.min(20_000, count - i);
    await insertLogs(
      db,
      Array.from({ length: size }, (_, k) => ({
        chainId: HEAVY_CHAIN,
        blockNumber: block,
        txIndex: 0,
        logIndex: i + k,
        address: addr('log-spammer'),
        topics: [topic],
        data: '0x01',
      })),
    );
  }
  return hash;
}

import type { Queryable } from '@sluice/db';
import {
  addr,
  insertActivity,
  insertErc20Balances,
  insertNativeBalances,
  insertNftHoldings,
  insertTokens,
  type SeedActivity,
  type SeedHolding,
  txHash,
} from '../test/support/seed-store.js';

/** The store the API benchmark reads: one heavy wallet and many light ones on chain 1. */
export interface BenchStore {
  heavy: `0x${string}`;
  light: `0x${string}`[];
  /** The heavy wallet's 1,000 tokens and their amounts (the multicall baseline reads the same). */
  tokens: { address: `0x${string}`; amount: bigint }[];
}

const chainId = 1;
const now = Math.floor(Date.now() / 1000);

/**
 * Heavy wallet: 10,000 activity rows, 1,000 priced ERC20 balances (+ native), 2,000 NFTs with
 * metadata; 10,000 light wallets with 5 activity rows, 3 balances and 1 NFT each; price history
 * every 4 hours over 8 days for every token.
 */
export async function seedBenchStore(db: Queryable, lightWallets = 10_000): Promise<BenchStore> {
  const heavy = addr('heavy-wallet');
  const light = Array.from({ length: lightWallets }, (_, i) => addr('light', i));
  const tokens = Array.from({ length: 1000 }, (_, i) => ({
    address: addr('bench-token', i),
    amount: BigInt(i + 1) * 10n ** 18n + 12345n,
  }));
  const collections = Array.from({ length: 20 }, (_, i) => addr('bench-nft', i));
  // A 21st collection is airdropped spam: the heavy wallet holds 100 of it, hidden by filter_spam.
  const spamCollection = addr('bench-spam-nft');
  const counterparty = addr('counterparty');

  await insertTokens(db, [
    ...tokens.map((t, i) => ({
      chainId,
      address: t.address,
      standard: 'erc20' as const,
      name: `Token ${i}`,
      symbol: `TK${i}`,
      decimals: 18,
    })),
    ...[...collections, spamCollection].map((address, i) => ({
      chainId,
      address,
      standard: 'erc721' as const,
      name: `Collection ${i}`,
      symbol: `COL${i}`,
      decimals: null,
    })),
  ]);

  // Prices: every token priced with a pool; history every 4 h for 8 days.
  await db.query(
    `insert into token_prices (chain_id, token, price_usd, pool_size, low_liquidity, pool_address, pool_type,
       pool_tokens, quote, price_in_quote, quote_liquidity, route, updated_block, updated_at)
     select $1, t, p, s, s < 10000, pa, 'uniswap_v2', array[t, 'native'], 'usd', p, s, '{}', 1, now()
       from unnest($2::text[], $3::float8[], $4::float8[], $5::text[]) as u(t, p, s, pa)`,
    [
      chainId,
      [...tokens.map((t) => t.address), 'native'],
      [...tokens.map((_, i) => 0.5 + i / 100), 3000],
      [...tokens.map((_, i) => 50 + i * 1000), 10_000_000],
      [...tokens.map((_, i) => addr('bench-pool', i)), addr('bench-pool-native')],
    ],
  );
  await db.query(
    `insert into pricing_cursors (chain_id, last_block, wrapped_native, stablecoins) values ($1, 1, null, '{}')`,
    [chainId],
  );
  await db.query(
    `insert into price_history (chain_id, token, block_number, time, price_usd, pool_size, quote, price_in_quote)
     select $1, t.token, h, to_timestamp($2 - h * 14400), t.price * (1 + h / 100.0), 1000, 'usd', t.price
       from unnest($3::text[], $4::float8[]) as t(token, price), generate_series(0, 47) as h`,
    [chainId, now, tokens.map((t) => t.address), tokens.map((_, i) => 0.5 + i / 100)],
  );

  await insertNativeBalances(db, [
    { chainId, wallet: heavy, amount: '5000000000000000000' },
    ...light.map((wallet) => ({ chainId, wallet, amount: '100000000000000000' })),
  ]);
  await insertErc20Balances(db, [
    ...tokens.map((t) => ({
      chainId,
      wallet: heavy,
      token: t.address,
      amount: t.amount.toString(),
    })),
    ...light.flatMap((wallet, w) =>
      [0, 1, 2].map((k) => ({
        chainId,
        wallet,
        token: tokens[(w * 3 + k) % 200]!.address,
        amount: String((w + 1) * 1000 + k),
      })),
    ),
  ]);

  const holdings: SeedHolding[] = [];
  for (let i = 0; i < 2000; i++) {
    holdings.push({
      chainId,
      wallet: heavy,
      contract: collections[i % 20]!,
      tokenId: String(i),
      standard: 'erc721',
      balance: '1',
      lastAcquired: now - i * 60,
    });
  }
  for (let i = 0; i < 100; i++) {
    holdings.push({
      chainId,
      wallet: heavy,
      contract: spamCollection,
      tokenId: String(i),
      standard: 'erc721',
      balance: '1',
      lastAcquired: now - i,
    });
  }
  for (const [w, wallet] of light.entries()) {
    holdings.push({
      chainId,
      wallet,
      contract: collections[w % 20]!,
      tokenId: String(100_000 + w),
      standard: 'erc721',
      balance: '1',
      lastAcquired: now - w,
    });
  }
  await insertNftHoldings(db, holdings);
  await db.query(
    `insert into nft_metadata (chain_id, contract, token_id, standard, uri, name, description, image_url, attributes, status)
     select $1, h.contract, h.token_id, 'erc721', 'ipfs://QmBench/' || h.token_id, 'NFT #' || h.token_id,
            'A benchmark token', 'https://ipfs.example/ipfs/QmBench/' || h.token_id || '.png',
            '[{"key":"Rarity","value":"Common"},{"key":"Level","value":"3"}]'::jsonb, 'ok'
       from nft_holdings h where h.wallet = $2`,
    [chainId, heavy],
  );
  await db.query(
    `insert into nft_collections (chain_id, contract, name, symbol, spam_score, is_spam, spam_explanations, info_status)
     select $1, c, 'Collection', 'COL', 10, false,
            '[{"feature":"trade_volume","value":5,"feature_score":0,"feature_weight":0.25}]'::jsonb, 'ok'
       from unnest($2::text[]) as c`,
    [chainId, collections],
  );
  await db.query(
    `insert into nft_collections (chain_id, contract, name, symbol, spam_score, is_spam, spam_explanations, info_status)
     values ($1, $2, 'Claim your reward', 'CLAIM', 95, true,
             '[{"feature":"suspicious_words","value":2,"feature_score":100,"feature_weight":0.3}]'::jsonb, 'ok')`,
    [chainId, spamCollection],
  );
  // Sales: 1 to 3 for every other NFT of the heavy wallet, and some for tokens it doesn't hold.
  await db.query(
    `insert into nft_sales (chain_id, contract, token_id, block_number, block_time, tx_hash, log_index,
       seller, buyer, quantity, payment_token, price)
     select $1, h.contract, h.token_id + extra, 500000 + s * 10, to_timestamp($2 - s * 3600),
            '0x' || md5(h.contract || h.token_id::text || s::text || extra::text), s, $3, $4, 1, 'native',
            (10000000000000000 * (s + 1))::numeric
       from nft_holdings h, generate_series(0, 2) as s, (values (0), (100000000)) as e(extra)
      where h.wallet = $4 and h.contract <> $5 and h.token_id::bigint % 2 = 0 and s <= h.token_id::bigint % 3`,
    [chainId, now, addr('nft-seller'), heavy, spamCollection],
  );

  const activity: SeedActivity[] = [];
  const kinds = ['receive', 'send', 'approve', 'swap', 'call', 'receive', 'send', 'mint'] as const;
  for (let i = 0; i < 10_000; i++) {
    const kind = kinds[i % kinds.length]!;
    const token = tokens[i % 1000]!.address;
    const base = {
      chainId,
      wallet: heavy,
      blockTime: now - (10_000 - i) * 12,
      blockNumber: 1_000_000 + i,
      txIndex: i % 7,
      logIndex: i % 3,
      txHash: txHash(i),
    };
    if (kind === 'swap') {
      activity.push({
        ...base,
        type: 'swap',
        assetType: 'erc20',
        subIndex: 1000,
        from: heavy,
        to: heavy,
        extra: {
          from_token_address: token,
          from_token_value: '1000',
          to_token_address: tokens[(i + 1) % 1000]!.address,
          to_token_value: '2000',
        },
      });
    } else if (kind === 'call') {
      activity.push({
        ...base,
        type: 'call',
        assetType: null,
        logIndex: -1,
        from: heavy,
        to: counterparty,
        value: '0',
        extra: {
          function: {
            signature: 'setApprovalForAll(address,bool)',
            name: 'setApprovalForAll',
            inputs: [
              { name: 'operator', type: 'address', value: counterparty },
              { name: 'approved', type: 'bool', value: 'true' },
            ],
          },
        },
      });
    } else if (kind === 'mint') {
      activity.push({
        ...base,
        type: 'mint',
        assetType: 'erc721',
        tokenAddress: collections[i % 20]!,
        from: '0x0000000000000000000000000000000000000000',
        to: heavy,
        value: '1',
        tokenId: String(i),
      });
    } else {
      activity.push({
        ...base,
        type: kind,
        assetType: i % 5 === 0 ? 'native' : 'erc20',
        tokenAddress: i % 5 === 0 ? null : token,
        from: kind === 'receive' ? counterparty : heavy,
        to: kind === 'receive' ? heavy : counterparty,
        value: String(1_000_000 + i),
      });
    }
  }
  for (const [w, wallet] of light.entries()) {
    for (let k = 0; k < 5; k++) {
      activity.push({
        chainId,
        wallet,
        blockTime: now - (w * 5 + k) * 3,
        blockNumber: 2_000_000 + w * 5 + k,
        txIndex: 0,
        logIndex: k,
        txHash: txHash(1_000_000 + w * 5 + k),
        type: 'receive',
        assetType: 'erc20',
        tokenAddress: tokens[(w * 3) % 200]!.address,
        from: counterparty,
        to: wallet,
        value: String(k + 1),
      });
    }
  }
  await insertActivity(db, activity);
  await db.query('analyze');
  return { heavy, light, tokens };
}

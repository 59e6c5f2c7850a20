import type { Queryable } from '@sluice/db';

/**
 * Direct SQL seeding of the indexer's tables for API tests and the API benchmark: the API only
 * reads these tables, so seeded rows exercise exactly what indexed rows would. Bulk inserts go
 * through unnest() so 10,000 rows are one statement.
 */

export interface SeedActivity {
  chainId: number;
  wallet: string;
  blockTime: number; // unix seconds
  blockNumber: number;
  txIndex: number;
  logIndex: number;
  subIndex?: number;
  txHash: string;
  type: string;
  assetType: string | null;
  tokenAddress?: string | null;
  from?: string | null;
  to?: string | null;
  value?: string | null;
  tokenId?: string | null;
  extra?: unknown;
}

export async function insertActivity(db: Queryable, rows: readonly SeedActivity[]) {
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    await db.query(
      `insert into activity (chain_id, wallet, block_time, block_number, tx_index, log_index, sub_index,
         tx_hash, type, asset_type, token_address, from_address, to_address, value, token_id, extra)
       select c, w, to_timestamp(t), b, ti, li, si, h, ty, at, ta, fa, toa, v::numeric, tid::numeric, e::jsonb
         from unnest($1::int[], $2::text[], $3::float8[], $4::bigint[], $5::int[], $6::int[], $7::int[],
                     $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
                     $14::text[], $15::text[], $16::text[])
           as u(c, w, t, b, ti, li, si, h, ty, at, ta, fa, toa, v, tid, e)`,
      [
        chunk.map((r) => r.chainId),
        chunk.map((r) => r.wallet),
        chunk.map((r) => r.blockTime),
        chunk.map((r) => r.blockNumber),
        chunk.map((r) => r.txIndex),
        chunk.map((r) => r.logIndex),
        chunk.map((r) => r.subIndex ?? 0),
        chunk.map((r) => r.txHash),
        chunk.map((r) => r.type),
        chunk.map((r) => r.assetType),
        chunk.map((r) => r.tokenAddress ?? null),
        chunk.map((r) => r.from ?? null),
        chunk.map((r) => r.to ?? null),
        chunk.map((r) => r.value ?? null),
        chunk.map((r) => r.tokenId ?? null),
        chunk.map((r) => (r.extra === undefined ? null : JSON.stringify(r.extra))),
      ],
    );
  }
}

export interface SeedToken {
  chainId: number;
  address: string;
  standard: 'erc20' | 'erc721' | 'erc1155';
  name: string | null;
  symbol: string | null;
  decimals: number | null;
}

export async function insertTokens(db: Queryable, rows: readonly SeedToken[]) {
  await db.query(
    `insert into tokens (chain_id, address, standard, name, symbol, decimals, status, first_block)
     select c, a, s, n, sy, d, 'ok', 0
       from unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[]) as u(c, a, s, n, sy, d)
     on conflict do nothing`,
    [
      rows.map((r) => r.chainId),
      rows.map((r) => r.address),
      rows.map((r) => r.standard),
      rows.map((r) => r.name),
      rows.map((r) => r.symbol),
      rows.map((r) => r.decimals),
    ],
  );
}

export async function insertErc20Balances(
  db: Queryable,
  rows: readonly {
    chainId: number;
    wallet: string;
    token: string;
    amount: string;
    /** Unix seconds of the first receipt (token-holders `first_acquired`). */
    firstAcquired?: number;
    hasSent?: boolean;
  }[],
) {
  await db.query(
    `insert into erc20_balances (wallet, chain_id, token, amount, updated_block, first_acquired, has_sent)
     select w, c, t, a::numeric, 1, to_timestamp(fa), hs
       from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::float8[], $6::bool[])
         as u(w, c, t, a, fa, hs)`,
    [
      rows.map((r) => r.wallet),
      rows.map((r) => r.chainId),
      rows.map((r) => r.token),
      rows.map((r) => r.amount),
      rows.map((r) => r.firstAcquired ?? null),
      rows.map((r) => r.hasSent ?? false),
    ],
  );
}

export async function insertNativeBalances(
  db: Queryable,
  rows: readonly { chainId: number; wallet: string; amount: string }[],
) {
  await db.query(
    `insert into native_balances (wallet, chain_id, amount, updated_block)
     select w, c, a::numeric, 1 from unnest($1::text[], $2::int[], $3::text[]) as u(w, c, a)`,
    [rows.map((r) => r.wallet), rows.map((r) => r.chainId), rows.map((r) => r.amount)],
  );
}

export interface SeedHolding {
  chainId: number;
  wallet: string;
  contract: string;
  tokenId: string;
  standard: 'erc721' | 'erc1155';
  balance: string;
  lastAcquired: number; // unix seconds
}

export async function insertNftHoldings(db: Queryable, rows: readonly SeedHolding[]) {
  await db.query(
    `insert into nft_holdings (wallet, chain_id, contract, token_id, standard, balance, last_acquired,
       last_acquired_block, updated_block)
     select w, c, ct, t::numeric, s, b::numeric, to_timestamp(la), 1, 1
       from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[])
         as u(w, c, ct, t, s, b, la)`,
    [
      rows.map((r) => r.wallet),
      rows.map((r) => r.chainId),
      rows.map((r) => r.contract),
      rows.map((r) => r.tokenId),
      rows.map((r) => r.standard),
      rows.map((r) => r.balance),
      rows.map((r) => r.lastAcquired),
    ],
  );
}

/** Marks chains as fully indexed (or not) for readiness. */
export async function setCheckpoint(
  db: Queryable,
  chainId: number,
  opts: { indexedBlock: number; headBlock?: number; backfillDone: boolean },
) {
  await db.query(
    `insert into checkpoints (chain_id, indexed_block, indexed_hash, indexed_time, head_block, backfill_done, updated_at)
     values ($1, $2, '0x', now(), $3, $4, now())
     on conflict (chain_id) do update set indexed_block = excluded.indexed_block,
       head_block = excluded.head_block, backfill_done = excluded.backfill_done, updated_at = now()`,
    [chainId, opts.indexedBlock, opts.headBlock ?? opts.indexedBlock, opts.backfillDone],
  );
}

/** A deterministic address from a label, e.g. addr('wallet', 3). */
export function addr(label: string, n = 0): `0x${string}` {
  let hex = '';
  for (const ch of `${label}:${n}`) hex += ch.charCodeAt(0).toString(16).padStart(2, '0');
  return `0x${hex.padEnd(40, '0').slice(0, 40)}` as `0x${string}`;
}

/** A deterministic 32-byte hash. */
export function txHash(n: number): string {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

export interface SeedPrice {
  chainId: number;
  token: string; // address or 'native'
  priceUsd: number | null;
  poolSize: number | null;
  lowLiquidity: boolean;
  poolAddress?: string;
  poolType?: 'uniswap_v2' | 'uniswap_v3';
  poolTokens?: string[];
}

/** Current prices as the pricing worker writes them (token_prices). */
export async function insertPrices(db: Queryable, rows: readonly SeedPrice[]) {
  for (const r of rows) {
    await db.query(
      `insert into token_prices (chain_id, token, price_usd, pool_size, low_liquidity, pool_address,
         pool_type, pool_tokens, quote, price_in_quote, quote_liquidity, route, updated_block, updated_at)
       values ($1, $2, $3::float8, $4::float8, $5, $6, $7, $8, 'usd', coalesce($3::float8, 0), coalesce($4::float8, 0), '{}', 1, now())`,
      [
        r.chainId,
        r.token,
        r.priceUsd,
        r.poolSize,
        r.lowLiquidity,
        r.poolAddress ?? null,
        r.poolType ?? null,
        r.poolTokens ?? null,
      ],
    );
  }
}

export interface SeedCollection {
  chainId: number;
  contract: string;
  name: string | null;
  symbol: string | null;
  spamScore: number | null;
  isSpam: boolean;
  explanations?: unknown;
}

export async function insertCollections(db: Queryable, rows: readonly SeedCollection[]) {
  for (const r of rows) {
    await db.query(
      `insert into nft_collections (chain_id, contract, name, symbol, spam_score, is_spam, spam_explanations, info_status)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, 'ok')`,
      [
        r.chainId,
        r.contract,
        r.name,
        r.symbol,
        r.spamScore,
        r.isSpam,
        r.explanations === undefined ? null : JSON.stringify(r.explanations),
      ],
    );
  }
}

export async function insertNftMetadata(
  db: Queryable,
  rows: readonly {
    chainId: number;
    contract: string;
    tokenId: string;
    standard: 'erc721' | 'erc1155';
    uri: string | null;
    name: string | null;
    description?: string | null;
    imageUrl?: string | null;
    attributes?: { key: string; value: string }[] | null;
    status?: 'pending' | 'ok' | 'failed';
  }[],
) {
  for (const r of rows) {
    await db.query(
      `insert into nft_metadata (chain_id, contract, token_id, standard, uri, name, description, image_url, attributes, status)
       values ($1, $2, $3::numeric, $4, $5, $6, $7, $8, $9::jsonb, $10)`,
      [
        r.chainId,
        r.contract,
        r.tokenId,
        r.standard,
        r.uri,
        r.name,
        r.description ?? null,
        r.imageUrl ?? null,
        r.attributes ? JSON.stringify(r.attributes) : null,
        r.status ?? 'ok',
      ],
    );
  }
}

export async function insertNftSale(
  db: Queryable,
  r: {
    chainId: number;
    contract: string;
    tokenId: string;
    blockNumber: number;
    logIndex: number;
    price: string;
    paymentToken?: string;
  },
) {
  await db.query(
    `insert into nft_sales (chain_id, contract, token_id, block_number, block_time, tx_hash, log_index,
       seller, buyer, quantity, payment_token, price)
     values ($1, $2, $3::numeric, $4, now(), '0x', $5, '0x01', '0x02', 1, $6, $7::numeric)`,
    [
      r.chainId,
      r.contract,
      r.tokenId,
      r.blockNumber,
      r.logIndex,
      r.paymentToken ?? 'native',
      r.price,
    ],
  );
}

import type { Queryable } from '@sluice/db';
import type { DerivedBatch, TokenMetadata } from '../../derive/index.js';
import type { StoreLogs } from '../chain-data.js';
import {
  type BalanceSteps,
  balanceItems,
  type NodeBalances,
  pairKey,
  touchedPairs,
  withNodeBalances,
} from './balance-items.js';
import { activityItems, type ItemChain, indexBatch, transactionItems } from './event-items.js';
import { splitDelivery } from './split-delivery.js';
import type {
  BlockItems,
  ItemPrice,
  ItemToken,
  LogoOf,
  WebhookType,
  WebhookWatch,
} from './webhook-watch.js';

/** NOTIFY channel that wakes dispatchers when deliveries were queued (sent at commit). */
export const OUTBOX_CHANNEL = 'webhook_outbox';

/**
 * Tells listening dispatchers that deliveries were queued; PostgreSQL delivers it at commit, so
 * it never announces rows of a transaction that rolled back.
 *
 * @example
 * await notifyOutbox(tx);
 */
export async function notifyOutbox(tx: Queryable): Promise<void> {
  await tx.query(`select pg_notify('${OUTBOX_CHANNEL}', '')`);
}

/** The webhooks a batch feeds and the balances before it, read before the batch is written. */
export interface BatchWatch {
  watches: WebhookWatch[];
  /** Stored balances of the watched balance pairs before the batch (absent: never seen). */
  before: Map<string, bigint>;
}

/**
 * Every address the batch names: activity wallets, transaction parties, balance changes.
 *
 * @example
 * const addresses = touchedAddresses(batch);
 */
export function touchedAddresses(batch: DerivedBatch): string[] {
  const out = new Set<string>();
  for (const row of batch.activity) out.add(row.wallet);
  for (const tx of batch.txs) {
    out.add(tx.from);
    if (tx.to) out.add(tx.to);
    if (tx.contractAddress) out.add(tx.contractAddress);
  }
  for (const pair of touchedPairs(batch)) out.add(pair.wallet);
  return [...out];
}

interface WatchRow {
  id: string;
  type: WebhookType;
  transaction_type: 'sender' | 'receiver' | null;
  counterparty: string | null;
  activity_type: string | null;
  asset_type: string | null;
  token_address: string | null;
  addresses: string[];
}

/**
 * Finds the active webhooks of `chainId` watching any address the batch touches (through
 * `webhook_addresses_address_idx`) and, for balances webhooks, reads the stored balances before
 * the batch. Null when no webhook watches the batch. Runs in the batch's transaction, before
 * `writeBatch`.
 *
 * @example
 * const watch = await watchBatch(tx, 1, batch);
 */
export async function watchBatch(
  tx: Queryable,
  chainId: number,
  batch: DerivedBatch,
): Promise<BatchWatch | null> {
  // Most stores have no webhook on the chain: one cheap look first, instead of collecting every
  // address of the batch and matching them in the in-order write stage.
  const { rows: active } = await tx.query<{ any: boolean }>(
    `select exists (select 1 from webhooks w
                     where w.active and (w.chain_ids is null or $1::bigint = any(w.chain_ids))) as any`,
    [chainId],
  );
  if (active[0]?.any !== true) return null;
  const addresses = touchedAddresses(batch);
  if (addresses.length === 0) return null;
  const { rows } = await tx.query<WatchRow>(
    `select w.id, w.type, w.transaction_type, w.counterparty, w.activity_type, w.asset_type,
            w.token_address, array_agg(a.address) as addresses
       from webhook_addresses a join webhooks w on w.id = a.webhook_id
      where a.address = any($2::text[]) and w.active
        and (w.chain_ids is null or $1::bigint = any(w.chain_ids))
      group by w.id
      order by w.id`,
    [chainId, addresses],
  );
  if (rows.length === 0) return null;
  const watches = rows.map((r) => ({
    id: r.id,
    type: r.type,
    addresses: new Set(r.addresses),
    transactionType: r.transaction_type,
    counterparty: r.counterparty?.toLowerCase() ?? null,
    activityType: r.activity_type,
    assetType: r.asset_type,
    tokenAddress: r.token_address?.toLowerCase() ?? null,
  }));
  const before = await readBalances(tx, chainId, batch, watches);
  return { watches, before };
}

/** Stored balances of the batch's pairs whose wallet a balances webhook watches. */
async function readBalances(
  tx: Queryable,
  chainId: number,
  batch: DerivedBatch,
  watches: readonly WebhookWatch[],
): Promise<Map<string, bigint>> {
  const watched = new Set<string>();
  for (const w of watches) if (w.type === 'balances') for (const a of w.addresses) watched.add(a);
  const out = new Map<string, bigint>();
  if (watched.size === 0) return out;
  const pairs = touchedPairs(batch).filter((p) => watched.has(p.wallet));
  const native = pairs.filter((p) => p.asset === 'native').map((p) => p.wallet);
  const erc20 = pairs.filter((p) => p.asset !== 'native');
  if (native.length > 0) {
    const { rows } = await tx.query<{ wallet: string; amount: string }>(
      `select wallet, amount::text as amount from native_balances
        where chain_id = $1 and wallet = any($2::text[])`,
      [chainId, native],
    );
    for (const r of rows) out.set(pairKey(r.wallet, 'native'), BigInt(r.amount));
  }
  if (erc20.length > 0) {
    const { rows } = await tx.query<{ wallet: string; token: string; amount: string }>(
      `select b.wallet, b.token, b.amount::text as amount
         from unnest($2::text[], $3::text[]) as p (wallet, token)
         join erc20_balances b on b.chain_id = $1 and b.wallet = p.wallet and b.token = p.token`,
      [chainId, erc20.map((p) => p.wallet), erc20.map((p) => p.asset)],
    );
    for (const r of rows) out.set(pairKey(r.wallet, r.token), BigInt(r.amount));
  }
  return out;
}

async function readTokens(
  tx: Queryable,
  chainId: number,
  addresses: readonly string[],
  fresh: readonly TokenMetadata[],
): Promise<Map<string, ItemToken>> {
  const out = new Map<string, ItemToken>();
  if (addresses.length > 0) {
    const { rows } = await tx.query<ItemToken & { address: string }>(
      `select address, symbol, name, decimals, standard from tokens
        where chain_id = $1 and address = any($2::text[])`,
      [chainId, addresses],
    );
    for (const { address, ...token } of rows) out.set(address, token);
  }
  for (const t of fresh) if (!out.has(t.address)) out.set(t.address, t);
  return out;
}

async function readPrices(
  tx: Queryable,
  chainId: number,
  assets: readonly string[],
): Promise<Map<string, ItemPrice>> {
  const out = new Map<string, ItemPrice>();
  if (assets.length === 0) return out;
  const { rows } = await tx.query<{
    token: string;
    price_usd: number | null;
    pool_size: number | null;
    low_liquidity: boolean;
  }>(
    `select token, price_usd, pool_size, low_liquidity from token_prices
      where chain_id = $1 and token = any($2::text[])`,
    [chainId, assets],
  );
  for (const r of rows) {
    out.set(r.token, {
      priceUsd: r.price_usd,
      poolSize: r.pool_size,
      lowLiquidity: r.low_liquidity,
    });
  }
  return out;
}

/**
 * Builds each watching webhook's items from the written batch and inserts them as outbox rows in
 * chain order (one delivery per webhook and block, split at the size caps).
 * Runs in the batch's transaction after every table writer (balances are read back as written).
 * Returns the number of deliveries queued.
 *
 * @example
 * const watch = await watchBatch(tx, chain.chainId, batch);
 * await writeBatch(tx, input);
 * if (watch) await queueWebhookDeliveries(tx, chain, batch, watch, { newTokens, storeLogs });
 */
export async function queueWebhookDeliveries(
  tx: Queryable,
  chain: ItemChain,
  batch: DerivedBatch,
  watch: BatchWatch,
  written: {
    newTokens: readonly TokenMetadata[];
    storeLogs: StoreLogs;
    /** Watched balances inside a batch of several blocks (read in the prepare stage). */
    balanceSteps?: BalanceSteps | undefined;
    /** Token logos as the read endpoints show them. */
    logoOf?: LogoOf | undefined;
    /** Balances of watched wallets the store does not keep (read from the node instead). */
    unstored?: NodeBalances | undefined;
  },
): Promise<number> {
  const chainId = chain.chainId;
  const tokenAddresses = new Set<string>();
  for (const t of batch.tokens.keys()) tokenAddresses.add(t);
  for (const row of batch.activity) {
    for (const v of [row.extra?.from_token_address, row.extra?.to_token_address]) {
      if (typeof v === 'string' && v !== 'native') tokenAddresses.add(v);
    }
  }
  const tokens = await readTokens(tx, chainId, [...tokenAddresses], written.newTokens);
  const balanceWatches = watch.watches.filter((w) => w.type === 'balances');
  const stored =
    balanceWatches.length > 0
      ? await readBalances(tx, chainId, batch, balanceWatches)
      : new Map<string, bigint>();
  const after = withNodeBalances(stored, written.unstored, 'after');
  const assets = new Set<string>();
  if (balanceWatches.length > 0) for (const p of touchedPairs(batch)) assets.add(p.asset);
  if (watch.watches.some((w) => w.type === 'activities')) {
    for (const row of batch.activity) assets.add(row.tokenAddress ?? 'native');
  }
  const prices = await readPrices(tx, chainId, [...assets]);
  const index = indexBatch(batch);
  const blocks: BlockItems[] = [];
  for (const w of watch.watches) {
    if (w.type === 'activities')
      blocks.push(...activityItems(chain, batch, index, w, tokens, prices, written.logoOf));
    else if (w.type === 'transactions')
      blocks.push(...transactionItems(chain, batch, index, w, written.storeLogs));
    else
      blocks.push(
        ...balanceItems(chain, batch, w, {
          before: withNodeBalances(watch.before, written.unstored, 'before'),
          after,
          tokens,
          prices,
          steps: written.balanceSteps,
          logoOf: written.logoOf,
        }),
      );
  }
  // Chain order across webhooks: a delivery's seq orders it within its webhook and chain.
  blocks.sort((a, b) =>
    a.blockNumber < b.blockNumber ? -1 : a.blockNumber > b.blockNumber ? 1 : 0,
  );
  const rows = blocks.flatMap((b) => splitDelivery(b.items).map((items) => ({ ...b, items })));
  if (rows.length === 0) return 0;
  await tx.query(
    `insert into webhook_deliveries (webhook_id, chain_id, block_number, block_hash, items, item_count)
     select u.webhook_id, $1, u.block_number, u.block_hash, u.items::jsonb, u.item_count
       from unnest($2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::int[])
            with ordinality as u (webhook_id, block_number, block_hash, items, item_count, ord)
      order by u.ord`,
    [
      chainId,
      rows.map((r) => r.webhookId),
      rows.map((r) => r.blockNumber.toString()),
      rows.map((r) => r.blockHash),
      rows.map((r) => JSON.stringify(r.items)),
      rows.map((r) => r.items.length),
    ],
  );
  await notifyOutbox(tx);
  return rows.length;
}

/**
 * Whether the store has the webhook tables (a store migrated with the indexer's migrations alone,
 * as the indexer's own tests and benchmarks use, has none: nothing to queue).
 *
 * @example
 * if (await hasWebhookTables(db)) await watchBatch(tx, chainId, batch);
 */
export async function hasWebhookTables(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>(
    `select to_regclass('webhook_addresses') is not null
        and to_regclass('webhook_deliveries') is not null as present`,
  );
  return rows[0]?.present === true;
}

import type { Queryable } from '@sluice/db';
import type { ChainConfig } from '../chains/index.js';
import type { WalletWarning } from './wallet-warning.js';

/**
 * Per wallets-mode chain with factories: from when USD prices are complete (unix seconds, the
 * block time of the pool bootstrap's last commit), or `Infinity` while it still runs.
 */
export type PriceCoverage = (chainIds: readonly number[]) => Promise<Map<number, number>>;

const TTL_MS = 2_000;

/**
 * Reads when each wallets-mode chain's pool bootstrap finished (src/wallets/pool-bootstrap.ts),
 * briefly memoized. Chains in full mode or without factories are absent: their price history is
 * complete. Undefined when no served chain needs it.
 *
 * @example
 * const coverage = createPriceCoverage(db, chains);
 * const since = await coverage?.([1]); // Map { 1 => 1795560000 }
 */
export function createPriceCoverage(
  db: Queryable,
  chains: readonly ChainConfig[],
): PriceCoverage | undefined {
  const ids = new Set(
    chains
      .filter(
        (c) =>
          c.mode === 'wallets' && c.uniswapV2Factories.length + c.uniswapV3Factories.length > 0,
      )
      .map((c) => c.chainId),
  );
  if (ids.size === 0) return undefined;
  const memo = new Map<number, { since: number; at: number }>();
  return async (chainIds) => {
    const out = new Map<number, number>();
    const wanted = chainIds.filter((id) => ids.has(id));
    const stale = wanted.filter((id) => (memo.get(id)?.at ?? 0) < Date.now() - TTL_MS);
    if (stale.length > 0) {
      const { rows } = await db.query<{ chain_id: number; since: string | null }>(
        `select q.id as chain_id,
                (select extract(epoch from c.block_time)::int8::text from pool_bootstrap_commits c
                  where c.chain_id = q.id and c.done order by c.seq desc limit 1) as since
           from unnest($1::int[]) as q(id)`,
        [stale],
      );
      for (const r of rows)
        memo.set(r.chain_id, {
          since: r.since === null ? Number.POSITIVE_INFINITY : Number(r.since),
          at: Date.now(),
        });
    }
    for (const id of wanted) {
      const m = memo.get(id);
      if (m) out.set(id, m.since);
    }
    return out;
  };
}

/**
 * The warning of an activity page whose rows on a wallets-mode chain are older than its price
 * coverage and valued at the current price (no price of their time exists there), so the
 * `value_usd` difference with full mode is explicit. Undefined when no row is concerned.
 *
 * @example
 * const w = priceHistoryWarning(rows.filter(usedCurrentPrice), coverage);
 */
export function priceHistoryWarning(
  rows: readonly { chain_id: number; block_time: number }[],
  coverage: ReadonlyMap<number, number>,
): WalletWarning | undefined {
  const chains = new Set<number>();
  for (const r of rows) {
    const since = coverage.get(r.chain_id);
    if (since !== undefined && r.block_time < since) chains.add(r.chain_id);
  }
  if (chains.size === 0) return undefined;
  const chainIds = [...chains].sort((a, b) => a - b);
  const since = chainIds.map((id) => coverage.get(id) as number);
  const when = since.every(Number.isFinite)
    ? `from ${new Date(Math.max(...since) * 1000).toISOString()} on`
    : 'once the DEX pools created before the wallets-mode start are loaded (in progress)';
  return {
    code: 'PRICE_HISTORY_PARTIAL',
    message: `In wallets mode, USD prices of these chains are known ${when}: value_usd of older activity uses the current price, not the price of its time.`,
    chain_ids: chainIds,
  };
}

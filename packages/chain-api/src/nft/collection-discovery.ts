import type { Queryable } from '@sluice/db';

/** A chain as discovery needs it. */
export interface DiscoveryChain {
  chainId: number;
  /** Blocks re-read after a reorg replaced the cursor's block. */
  finalityDepth: number;
}

/** What one discovery step found. */
export interface DiscoveryResult {
  /** Collections seen for the first time. */
  discovered: number;
  /** Their addresses (lower-case), per chain: the pass fetches a sample token of each first. */
  found: Array<{ chainId: number; contract: string }>;
  /** Known collections with new transfers, asked to be re-scored. */
  touched: number;
  /** True when some chain's cursor is still behind its indexed height (call again soon). */
  behind: boolean;
}

/**
 * Finds the NFT collections the indexer saw move since the last call, from its `activity` rows
 * (every ERC721/ERC1155 transfer, mint and burn) read from a per-chain block cursor: a contract
 * seen for the first time gets its `nft_collections` row (scored on the same pass), a known one a
 * debounced re-score request (`rescore_after`: new holders, sales or mints are new evidence). At
 * most `maxBlocks` blocks per chain per call, so a long backfill is caught up over several passes.
 * The cursor remembers its block's hash: when a reorg replaced that block, it steps back
 * `finalityDepth` blocks and reads them again (idempotent).
 *
 * @example
 * const { discovered } = await discoverCollections(db, chains, { maxBlocks: 2_000, debounceMs: 10_000 });
 */
export async function discoverCollections(
  db: Queryable,
  chains: readonly DiscoveryChain[],
  opts: { maxBlocks: number; debounceMs: number },
): Promise<DiscoveryResult> {
  const result: DiscoveryResult = { discovered: 0, found: [], touched: 0, behind: false };
  for (const chain of chains) {
    const { rows } = await db.query<{
      indexed: string | null;
      cursor: string | null;
      cursor_hash: string | null;
      stored_hash: string | null;
    }>(
      `select (select indexed_block::text from checkpoints where chain_id = $1) as indexed,
              c.block::text as cursor, c.hash as cursor_hash, b.hash as stored_hash
         from (select 1) one
         left join nft_discovery_cursors c on c.chain_id = $1
         left join blocks b on b.chain_id = $1 and b.number = c.block`,
      [chain.chainId],
    );
    const row = rows[0];
    if (!row?.indexed) continue;
    const indexed = BigInt(row.indexed);
    let from = row.cursor === null ? -1n : BigInt(row.cursor);
    // The cursor's block was replaced (reorg) or rolled back: read the unfinalized window again.
    if (from >= 0n && row.cursor_hash && row.stored_hash !== row.cursor_hash) {
      from = from - BigInt(chain.finalityDepth) - 1n;
      if (from < -1n) from = -1n;
    }
    if (from > indexed) from = indexed;
    if (from === indexed) continue;
    const to = from + BigInt(opts.maxBlocks) < indexed ? from + BigInt(opts.maxBlocks) : indexed;
    const { rows: counts } = await db.query<{ found: string[]; touched: string }>(
      `with moved as (
         select token_address as contract, min(asset_type) as standard
           from activity
          where chain_id = $1 and block_number > $2::bigint and block_number <= $3::bigint
            and asset_type in ('erc721', 'erc1155') and type <> 'approve' and token_address is not null
          group by token_address
       ), upserted as (
         insert into nft_collections (chain_id, contract, standard)
         select $1, contract, standard from moved
         on conflict (chain_id, contract) do update
            set rescore_after = least(
                  coalesce(nft_collections.rescore_after, 'infinity'::timestamptz),
                  greatest(now(), nft_collections.scored_at
                                  + make_interval(secs => $4::double precision / 1000)))
          where nft_collections.scored_at is not null
         returning contract, (xmax = 0) as inserted
       )
       select coalesce(array_agg(contract) filter (where inserted), '{}') as found,
              count(*) filter (where not inserted)::text as touched
         from upserted`,
      [chain.chainId, from.toString(), to.toString(), opts.debounceMs],
    );
    const found = counts[0]?.found ?? [];
    result.discovered += found.length;
    for (const contract of found) result.found.push({ chainId: chain.chainId, contract });
    result.touched += Number(counts[0]?.touched ?? 0);
    await db.query(
      `insert into nft_discovery_cursors (chain_id, block, hash)
       select $1, $2::bigint, coalesce((select hash from blocks where chain_id = $1 and number = $2::bigint), '')
       on conflict (chain_id) do update set block = excluded.block, hash = excluded.hash`,
      [chain.chainId, to.toString()],
    );
    if (to < indexed) result.behind = true;
  }
  return result;
}

/**
 * Makes sure every collection of the given tokens has its `nft_collections` row (tokens the
 * indexer queued for metadata whose transfers discovery has not read yet), so the pass that
 * fetches their metadata also scores them. Returns how many rows were added.
 *
 * @example
 * await ensureCollections(db, claimedTokens);
 */
export async function ensureCollections(
  db: Queryable,
  tokens: ReadonlyArray<{ chainId: number; contract: string; standard: string }>,
): Promise<number> {
  if (tokens.length === 0) return 0;
  const unique = new Map<string, { chainId: number; contract: string; standard: string }>();
  for (const t of tokens) unique.set(`${t.chainId}:${t.contract}`, t);
  const list = [...unique.values()];
  const result = await db.query(
    `insert into nft_collections (chain_id, contract, standard)
     select * from unnest($1::int[], $2::text[], $3::text[])
     on conflict (chain_id, contract) do nothing`,
    [list.map((c) => c.chainId), list.map((c) => c.contract), list.map((c) => c.standard)],
  );
  return result.rowCount;
}

import type { Queryable } from '@sluice/db';
import { insertCollections, upsertMovedCollections } from '../store/nft/collection-writes.js';
import { saveDiscoveryCursor } from '../store/nft/nft-cursors.js';

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
    const { found, touched } = await upsertMovedCollections(
      db,
      chain.chainId,
      from,
      to,
      opts.debounceMs,
    );
    result.discovered += found.length;
    for (const contract of found) result.found.push({ chainId: chain.chainId, contract });
    result.touched += touched;
    await saveDiscoveryCursor(db, chain.chainId, to);
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
  return insertCollections(db, [...unique.values()]);
}

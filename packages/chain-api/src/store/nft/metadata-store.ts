import type { Queryable } from '@sluice/db';

/** What the store keeps of a token's metadata document (normalized by the NFT worker). */
export interface StoredMetadata {
  name: string | null;
  description: string | null;
  imageUrl: string | null;
  attributes: readonly unknown[];
  /** Read by the spam heuristics, not stored. */
  externalUrl?: string | null;
}

/** A token claimed from the queue. */
export interface ClaimedToken {
  chainId: number;
  contract: string;
  tokenId: bigint;
  standard: 'erc721' | 'erc1155';
  /** URI stored by the previous successful fetch, if any. */
  uri: string | null;
  status: 'pending' | 'ok' | 'failed';
  attempts: number;
  /** Block of the last ERC-4906 refresh request when claimed: a save only lands if unchanged. */
  refreshBlock: string | null;
  /** Someone holds the token now (false: burned, or every ERC1155 unit gone). */
  held: boolean;
  /** Reads put back since the last success because the node did not answer. */
  deferrals: number;
}

interface ClaimRow {
  chain_id: number;
  contract: string;
  token_id: string;
  standard: 'erc721' | 'erc1155';
  uri: string | null;
  status: 'pending' | 'ok' | 'failed';
  attempts: number;
  refresh_block: string | null;
  held: boolean;
  deferrals: number;
}

const claimedColumns = `m.chain_id, m.contract, m.token_id::text as token_id, m.standard, m.uri,
  m.status, m.attempts, m.refresh_block::text as refresh_block, m.deferrals,
  exists (select 1 from nft_holdings h where h.chain_id = m.chain_id
             and h.contract = m.contract and h.token_id = m.token_id) as held`;

function toClaimed(row: ClaimRow): ClaimedToken {
  return {
    chainId: row.chain_id,
    contract: row.contract,
    tokenId: BigInt(row.token_id),
    standard: row.standard,
    uri: row.uri,
    status: row.status,
    attempts: row.attempts,
    refreshBlock: row.refresh_block,
    held: row.held,
    deferrals: row.deferrals,
  };
}

/**
 * Inserts a `pending` metadata row for every held token that has none yet (the indexer normally
 * does it on first sight; this is the safety net) and a collection row for every contract.
 * Returns how many tokens were queued.
 */
export async function enqueueMissing(db: Queryable, limit = 10_000): Promise<number> {
  const tokens = await db.query(
    `insert into nft_metadata (chain_id, contract, token_id, standard, status, next_attempt)
     select h.chain_id, h.contract, h.token_id, min(h.standard), 'pending', now()
       from nft_holdings h
      where not exists (select 1 from nft_metadata m
                         where m.chain_id = h.chain_id and m.contract = h.contract and m.token_id = h.token_id)
      group by h.chain_id, h.contract, h.token_id
      limit $1
     on conflict do nothing`,
    [limit],
  );
  await db.query(
    `insert into nft_collections (chain_id, contract, standard)
     select m.chain_id, m.contract, min(m.standard)
       from nft_metadata m
      where not exists (select 1 from nft_collections c where c.chain_id = m.chain_id and c.contract = m.contract)
      group by m.chain_id, m.contract
     on conflict do nothing`,
  );
  return tokens.rowCount;
}

/**
 * Claims up to `limit` due tokens (pending/failed first, then URI re-checks of fetched ones),
 * leasing them for `leaseMs` so another replica does not pick them up meanwhile.
 */
export async function claimDue(
  db: Queryable,
  chainIds: readonly number[],
  limit: number,
  leaseMs: number,
): Promise<ClaimedToken[]> {
  if (limit <= 0 || chainIds.length === 0) return [];
  const claimed: ClaimedToken[] = [];
  for (const statusFilter of [`status <> 'ok'`, `status = 'ok'`]) {
    const want = limit - claimed.length;
    if (want <= 0) break;
    const { rows } = await db.query<ClaimRow>(
      `with due as (
         select chain_id, contract, token_id from nft_metadata
          where ${statusFilter} and next_attempt <= now() and chain_id = any($1::int[])
          order by next_attempt
          limit $2
          for update skip locked
       )
       update nft_metadata m
          set next_attempt = now() + make_interval(secs => $3::double precision / 1000)
         from due
        where m.chain_id = due.chain_id and m.contract = due.contract and m.token_id = due.token_id
       returning ${claimedColumns}`,
      [chainIds, want, leaseMs],
    );
    for (const row of rows) claimed.push(toClaimed(row));
  }
  return claimed;
}

/**
 * Claims one due, not yet fetched token of each given collection (found this pass), so the pass
 * that discovers a collection scores it from a real document instead of its name alone. Each
 * lookup is a primary-key prefix scan.
 */
export async function claimSamples(
  db: Queryable,
  collections: ReadonlyArray<{ chainId: number; contract: string }>,
  limit: number,
  leaseMs: number,
): Promise<ClaimedToken[]> {
  const picked = collections.slice(0, Math.max(0, limit));
  if (picked.length === 0) return [];
  const { rows } = await db.query<ClaimRow>(
    `with wanted as (
       select t.chain_id, t.contract from unnest($1::int[], $2::text[]) as t(chain_id, contract)
     ), due as (
       select s.chain_id, s.contract, s.token_id from wanted w
        cross join lateral (
          select chain_id, contract, token_id from nft_metadata m
           where m.chain_id = w.chain_id and m.contract = w.contract
             and m.status = 'pending' and m.next_attempt <= now()
           limit 1
           for update skip locked
        ) s
     )
     update nft_metadata m
        set next_attempt = now() + make_interval(secs => $3::double precision / 1000)
       from due
      where m.chain_id = due.chain_id and m.contract = due.contract and m.token_id = due.token_id
     returning ${claimedColumns}`,
    [picked.map((c) => c.chainId), picked.map((c) => c.contract), leaseMs],
  );
  return rows.map(toClaimed);
}

const sameRow = `chain_id = $1 and contract = $2 and token_id = $3::numeric
  and refresh_block is not distinct from $4::bigint`;

/**
 * Stores a fetched document (already bounded; `limited` says what was cut, null: nothing);
 * `recheckMs` from now the URI is read again. False if re-queued meanwhile.
 */
export async function saveSuccess(
  db: Queryable,
  token: ClaimedToken,
  uri: string,
  meta: StoredMetadata,
  recheckMs: number,
  limited: string | null = null,
): Promise<boolean> {
  const result = await db.query(
    `update nft_metadata
        set uri = $5, name = $6, description = $7, image_url = $8, attributes = $9::jsonb,
            limited = $11, status = 'ok', attempts = 0, deferrals = 0, last_error = null,
            fetched_at = now(),
            next_attempt = now() + make_interval(secs => $10::double precision / 1000)
      where ${sameRow}`,
    [
      token.chainId,
      token.contract,
      token.tokenId.toString(),
      token.refreshBlock,
      uri,
      meta.name,
      meta.description,
      meta.imageUrl,
      JSON.stringify(meta.attributes),
      recheckMs,
      limited,
    ],
  );
  return result.rowCount > 0;
}

/** A URI re-check found the URI unchanged: only push the next re-check out. */
export async function saveUnchanged(
  db: Queryable,
  token: ClaimedToken,
  recheckMs: number,
): Promise<void> {
  await db.query(
    `update nft_metadata
        set next_attempt = now() + make_interval(secs => $5::double precision / 1000)
      where ${sameRow} and status = 'ok'`,
    [token.chainId, token.contract, token.tokenId.toString(), token.refreshBlock, recheckMs],
  );
}

/**
 * Records a failure: attempts + 1, the error text, and the next attempt `delayMs` from now. What
 * was known before (name, image, ...) stays so the API keeps serving it; the URI is kept when the
 * contract call succeeded.
 */
export async function saveFailure(
  db: Queryable,
  token: ClaimedToken,
  uri: string | null,
  error: string,
  delayMs: number,
): Promise<void> {
  await db.query(
    `update nft_metadata
        set status = 'failed', attempts = attempts + 1, deferrals = 0, last_error = $5,
            uri = coalesce($6, uri),
            next_attempt = now() + make_interval(secs => $7::double precision / 1000)
      where ${sameRow}`,
    [
      token.chainId,
      token.contract,
      token.tokenId.toString(),
      token.refreshBlock,
      error,
      uri,
      delayMs,
    ],
  );
}

/**
 * The node was unreachable: try again after `delayMs`, without counting it as an attempt (but
 * as a deferral: the worker treats a token deferred too often as failing).
 */
export async function saveRetryLater(
  db: Queryable,
  token: ClaimedToken,
  delayMs: number,
): Promise<void> {
  await db.query(
    `update nft_metadata set deferrals = deferrals + 1,
            next_attempt = now() + make_interval(secs => $5::double precision / 1000)
      where ${sameRow}`,
    [token.chainId, token.contract, token.tokenId.toString(), token.refreshBlock, delayMs],
  );
}

/** Marks collections for re-scoring (their metadata or sales changed). */
export async function markCollectionsDirty(
  db: Queryable,
  collections: ReadonlyArray<{ chainId: number; contract: string }>,
): Promise<void> {
  if (collections.length === 0) return;
  await db.query(
    `update nft_collections c set scored_at = null
       from unnest($1::int[], $2::text[]) as t(chain_id, contract)
      where c.chain_id = t.chain_id and c.contract = t.contract`,
    [collections.map((c) => c.chainId), collections.map((c) => c.contract)],
  );
}

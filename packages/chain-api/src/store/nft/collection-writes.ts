import type { Queryable } from '@sluice/db';

/**
 * Upserts the collections whose tokens moved in `(from, to]` (from `activity`): new ones get
 * their row, known scored ones a debounced re-score request. Returns the new contracts and how
 * many known ones were touched.
 */
export async function upsertMovedCollections(
  db: Queryable,
  chainId: number,
  from: bigint,
  to: bigint,
  debounceMs: number,
): Promise<{ found: string[]; touched: number }> {
  const { rows } = await db.query<{ found: string[]; touched: string }>(
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
    [chainId, from.toString(), to.toString(), debounceMs],
  );
  return { found: rows[0]?.found ?? [], touched: Number(rows[0]?.touched ?? 0) };
}

/** Inserts the collections not stored yet; returns how many rows were added. */
export async function insertCollections(
  db: Queryable,
  list: ReadonlyArray<{ chainId: number; contract: string; standard: string }>,
): Promise<number> {
  const result = await db.query(
    `insert into nft_collections (chain_id, contract, standard)
     select * from unnest($1::int[], $2::text[], $3::text[])
     on conflict (chain_id, contract) do nothing`,
    [list.map((c) => c.chainId), list.map((c) => c.contract), list.map((c) => c.standard)],
  );
  return result.rowCount;
}

/** Stores a collection's spam verdict (clearing any re-score request). */
export async function saveSpamScore(
  db: Queryable,
  chainId: number,
  contract: string,
  score: { score: number; isSpam: boolean; explanations: unknown },
): Promise<void> {
  await db.query(
    `update nft_collections
        set spam_score = $3, is_spam = $4, spam_explanations = $5::jsonb, scored_at = now(),
            rescore_after = null
      where chain_id = $1 and contract = $2`,
    [chainId, contract, score.score, score.isSpam, JSON.stringify(score.explanations)],
  );
}

/**
 * Sets (or, with `null`, removes) the manual classification of a contract and marks it for
 * re-scoring.
 */
export async function saveSpamOverride(
  db: Queryable,
  chainId: number,
  contract: string,
  classification: string | null,
  note: string | null,
): Promise<void> {
  if (classification === null) {
    await db.query('delete from nft_spam_overrides where chain_id = $1 and contract = $2', [
      chainId,
      contract,
    ]);
  } else {
    await db.query(
      `insert into nft_spam_overrides (chain_id, contract, classification, note) values ($1, $2, $3, $4)
       on conflict (chain_id, contract) do update set classification = excluded.classification, note = excluded.note`,
      [chainId, contract, classification, note],
    );
  }
  await db.query(
    'update nft_collections set scored_at = null where chain_id = $1 and contract = $2',
    [chainId, contract],
  );
}

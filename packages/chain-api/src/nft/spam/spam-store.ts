import type { Queryable } from '@sluice/db';
import { saveSpamOverride, saveSpamScore } from '../../store/nft/collection-writes.js';
import { type CollectionSignals, scoreCollection } from './score-collection.js';
import type { ManualClassification, SpamConfig } from './spam-config.js';

/** Tokens sampled per collection for the metadata heuristics. */
const sampleSize = 50;

interface SignalRow {
  chain_id: number;
  contract: string;
  name: string | null;
  symbol: string | null;
  age_days: number | null;
  sales: string;
  buyers: string;
  sellers: string;
  override: ManualClassification | null;
  samples: Array<{
    uri: string | null;
    name: string | null;
    description: string | null;
    image_url: string | null;
    attributes: Array<{ key?: unknown; value?: unknown }> | null;
  }> | null;
}

/**
 * Scores the collections due for it (never scored, marked dirty, asked for by new transfers
 * (`rescore_after`), or older than `maxAgeMs`) and
 * stores `spam_score`, `is_spam`, `spam_explanations` in `nft_collections`, where the API reads
 * them. Returns the number of collections scored.
 *
 * @example
 * await computeSpamScores(db, spamConfig(), { limit: 500, maxAgeMs: 600_000 });
 */
export async function computeSpamScores(
  db: Queryable,
  config: SpamConfig,
  opts: { limit: number; maxAgeMs: number; chainIds?: readonly number[] },
): Promise<number> {
  const { rows } = await db.query<SignalRow>(
    `with due as (
       select chain_id, contract, name, symbol, first_seen_at from nft_collections
        where (scored_at is null or rescore_after <= now()
               or scored_at < now() - make_interval(secs => $2::double precision / 1000))
          and ($3::int[] is null or chain_id = any($3::int[]))
        order by scored_at nulls first
        limit $1
     )
     select d.chain_id, d.contract, d.name, d.symbol,
            extract(epoch from now() - d.first_seen_at)::float8 / 86400 as age_days,
            s.sales, s.buyers, s.sellers, o.classification as override,
            (select json_agg(json_build_object('uri', m.uri, 'name', m.name, 'description', m.description,
                                               'image_url', m.image_url, 'attributes', m.attributes))
               from (select uri, name, description, image_url, attributes from nft_metadata m
                      where m.chain_id = d.chain_id and m.contract = d.contract and m.uri is not null
                      order by m.token_id limit ${sampleSize}) m) as samples
       from due d
       cross join lateral (
         select count(*)::text as sales, count(distinct buyer)::text as buyers, count(distinct seller)::text as sellers
           from nft_sales x where x.chain_id = d.chain_id and x.contract = d.contract
       ) s
       left join nft_spam_overrides o on o.chain_id = d.chain_id and o.contract = d.contract`,
    [opts.limit, opts.maxAgeMs, opts.chainIds ?? null],
  );
  for (const row of rows) {
    const score = scoreCollection(toSignals(row), config);
    await saveSpamScore(db, row.chain_id, row.contract, score);
  }
  return rows.length;
}

function toSignals(row: SignalRow): CollectionSignals {
  const samples = row.samples ?? [];
  const texts: string[] = [];
  const urls: string[] = [];
  for (const value of [row.name, row.symbol]) if (value) texts.push(value);
  for (const sample of samples) {
    if (sample.name) texts.push(sample.name);
    if (sample.description) texts.push(sample.description);
    if (sample.image_url && !sample.image_url.startsWith('data:')) urls.push(sample.image_url);
    for (const attribute of sample.attributes ?? []) {
      if (typeof attribute.value === 'string') texts.push(attribute.value);
    }
  }
  const tokenUris = samples.map((s) => s.uri).filter((uri): uri is string => uri !== null);
  // A metadata URI behind a link shortener hides where the document lives: same signal.
  urls.push(...tokenUris.filter((uri) => !uri.startsWith('data:')));
  return {
    chainId: row.chain_id,
    contract: row.contract,
    ageDays: row.age_days === null ? null : Number(row.age_days),
    sales: Number(row.sales),
    uniqueBuyers: Number(row.buyers),
    uniqueSellers: Number(row.sellers),
    tokenUris,
    texts,
    urls,
    storedOverride: row.override ?? undefined,
  };
}

/**
 * Sets (or, with `null`, removes) the manual classification of a contract and marks it for
 * re-scoring; the worker applies it on its next pass.
 *
 * @example
 * await setSpamOverride(db, 1, '0xabc...', 'not_spam', 'verified by support ticket 123');
 */
export async function setSpamOverride(
  db: Queryable,
  chainId: number,
  contract: string,
  classification: ManualClassification | null,
  note?: string,
): Promise<void> {
  const address = contract.toLowerCase();
  if (!/^0x[0-9a-f]{40}$/.test(address))
    throw new RangeError(`not a contract address: ${contract}`);
  await saveSpamOverride(db, chainId, address, classification, note ?? null);
}

import { storedMetadataLimits } from '../../nft/bound-metadata.js';
import { metadataLimits } from '../../nft/normalize-metadata.js';
import { preparedQuery, type ReadDb } from './prepared-query.js';

/**
 * The most one row may carry into an answer (characters; attributes as JSON bytes): what the
 * NFT worker stores (src/nft/bound-metadata.ts) and, for an inline image or token URI, what
 * an answer echoes (a longer `data:` URI is left out: the parsed fields are served instead).
 */
export const servedLimits = {
  name: metadataLimits.name,
  description: metadataLimits.description,
  imageUrl: storedMetadataLimits.imageUrlChars,
  uri: storedMetadataLimits.uriChars,
  attributesBytes: storedMetadataLimits.documentBytes,
} as const;

/** Keyset position: the holdings primary key after the wallet (chain, contract, token id). */
export type CollectibleKey = [chainId: number, contract: string, tokenId: string];

export interface CollectiblesQuery {
  wallet: string;
  chainIds: number[];
  /** Hide collections classified as spam (filter_spam). */
  hideSpam: boolean;
  after?: CollectibleKey | undefined;
  limit: number;
}

export interface CollectibleRow {
  chain_id: number;
  contract: string;
  token_id: string;
  standard: 'erc721' | 'erc1155';
  balance: string;
  last_acquired: number;
  token_name: string | null;
  description: string | null;
  image_url: string | null;
  /** Null when the token has no URI, or it is not served (a long `data:` URI or its digest). */
  uri: string | null;
  /** The token's URI is known (its metadata object is shown, with or without `uri`). */
  has_uri: boolean;
  attributes: unknown;
  collection_name: string | null;
  symbol: string | null;
  spam_score: number | null;
  is_spam: boolean | null;
  spam_explanations: unknown;
  last_sale_price: string | null;
}

/**
 * One page of a wallet's NFTs: a range scan of the nft_holdings primary key (spam collections
 * left out when asked), then the token's metadata, the collection's name/symbol/spam verdict
 * and the latest sale per row.
 */
export async function selectCollectibles(
  db: ReadDb,
  q: CollectiblesQuery,
): Promise<CollectibleRow[]> {
  const params: unknown[] = [q.wallet, q.chainIds];
  const where = ['h.wallet = $1', 'h.chain_id = any($2::int[])'];
  if (q.hideSpam) {
    // An anti-join keeps the holdings key's order, so the page stops after `limit` rows even
    // under a plan that does not know how many the wallet holds.
    where.push(
      'not exists (select from nft_collections c where c.chain_id = h.chain_id and c.contract = h.contract and c.is_spam)',
    );
  }
  if (q.after) {
    params.push(...q.after);
    const n = params.length;
    where.push(
      `(h.chain_id, h.contract, h.token_id) > ($${n - 2}::int, $${n - 1}::text, $${n}::numeric)`,
    );
  }
  const l = servedLimits;
  params.push(q.limit);
  // The page first (a range of the holdings key), then one primary-key lookup per row for
  // metadata, collection and token: cheap to plan, and PostgreSQL settles on one plan per
  // connection, where the four-way join was planned again at every request.
  const sql = `
    select h.chain_id, h.contract, h.token_id::text as token_id, h.standard, h.balance::text as balance,
           extract(epoch from h.last_acquired)::float8 as last_acquired,
           -- Rows stored before documents were bounded are cut here, from the stored sizes
           -- (octet_length and pg_column_size read no large value): no answer carries more.
           left(m.name, ${l.name}) as token_name, left(m.description, ${l.description}) as description,
           case when octet_length(m.image_url) > ${l.imageUrl} then null else m.image_url end as image_url,
           case when substr(m.uri, 1, 5) not ilike 'data:' then m.uri
                when octet_length(m.uri) > ${l.uri} or m.uri ~ ';sha256=[0-9a-f]{64},$' then null
                else m.uri end as uri,
           m.uri is not null as has_uri,
           case when pg_column_size(m.attributes) > ${l.attributesBytes} then null else m.attributes end as attributes,
           coalesce(c.name, t.name) as collection_name, coalesce(c.symbol, t.symbol) as symbol,
           c.spam_score, c.is_spam, c.spam_explanations,
           (select s.price::text from nft_sales s
             where s.chain_id = h.chain_id and s.contract = h.contract and s.token_id = h.token_id
             order by s.block_number desc, s.log_index desc limit 1) as last_sale_price
      from (select h.* from nft_holdings h
             where ${where.join(' and ')}
             order by h.chain_id, h.contract, h.token_id
             limit $${params.length}) h
      left join lateral (
        select m.name, m.description, m.image_url, m.uri, m.attributes from nft_metadata m
         where m.chain_id = h.chain_id and m.contract = h.contract and m.token_id = h.token_id
      ) m on true
      left join lateral (
        select c.name, c.symbol, c.spam_score, c.is_spam, c.spam_explanations from nft_collections c
         where c.chain_id = h.chain_id and c.contract = h.contract
      ) c on true
      left join lateral (
        select t.name, t.symbol from tokens t where t.chain_id = h.chain_id and t.address = h.contract
      ) t on true
     order by h.chain_id, h.contract, h.token_id`;
  const { rows } = await preparedQuery<CollectibleRow>(db, sql, params);
  return rows;
}

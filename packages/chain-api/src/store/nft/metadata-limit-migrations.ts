import type { Migration } from '@sluice/db';

/**
 * Bounded NFT metadata: `limited` says what of a stored document was dropped or cut to keep it
 * within the store's limits (src/nft/bound-metadata.ts); `deferrals` counts reads put back
 * because the node did not answer, so a token whose read always times out stops being retried
 * every 30 s and joins the failure backoff. Stored token URIs beyond 8 Ki characters (documents
 * inlined as `data:` URIs) become their digest, as the worker now stores them.
 */
const bounded = /* sql */ `
alter table nft_metadata add column limited text;
alter table nft_metadata add column deferrals integer not null default 0;
update nft_metadata
   set uri = 'data:' || lower(split_part(split_part(substr(uri, 6, 200), ',', 1), ';', 1)) || ';sha256='
             || encode(sha256(convert_to(uri, 'UTF8')), 'hex') || ',',
       limited = 'uri: data: URI stored as its digest'
 where length(uri) > 8192 and uri ilike 'data:%';
`;

/** Appended to `nftMigrations`. */
export const metadataLimitMigrations: Migration[] = [
  { id: 'nft-005-bounded-metadata', sql: bounded },
];

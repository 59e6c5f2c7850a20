import type { FastifyInstance } from 'fastify';
import type { ChainConfig } from '../../chains/chain-config.js';
import { servedTokenUri } from '../../nft/bound-metadata.js';
import { setIfPresent, utcIso } from '../../shape/format.js';
import { chainIdsParam, chainsNotReadyWarning, resolveChains } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { cursorParam } from '../cursor.js';
import { walletAddressParam } from '../params/address-params.js';
import { booleanParam } from '../params/choice-params.js';
import { limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import type { CollectibleKey, CollectibleRow } from '../queries/collectibles-query.js';
import { chainsNotReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { collectionDep, nftWalletDeps, spamDep } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { collectiblesResponseSchema } from '../schemas/collectible-schemas.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { walletBackfillGate } from '../wallet-backfill.js';
import { type CollectiblesPage, loadCollectiblesPage } from './collectibles-page.js';

const pathParams = defineParams({ address: walletAddressParam });
const queryParams = defineParams({
  chain_ids: chainIdsParam(),
  offset: cursorParam,
  limit: limitParam({ min: 1, max: 2500, fallback: 250 }),
  filter_spam: booleanParam(true, 'Hide collectibles classified as spam (default true).'),
  show_spam_scores: booleanParam(false, 'Include `spam_score` and `explanations`.'),
});

function isCollectibleKey(key: readonly (string | number)[]): key is CollectibleKey {
  return (
    key.length === 3 &&
    Number.isInteger(key[0]) &&
    typeof key[1] === 'string' &&
    typeof key[2] === 'string' &&
    /^\d{1,78}$/.test(key[2])
  );
}

function attributesOf(value: unknown): { key: string; value: string }[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter((a): a is { key: unknown; value: unknown } => typeof a === 'object' && a !== null)
    .map((a) => ({ key: String(a.key ?? ''), value: String(a.value ?? '') }));
}

/** Maps a stored holding to the peer's collectible entry. */
export function shapeCollectible(
  row: CollectibleRow,
  chain: ChainConfig,
  showScores: boolean,
): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    contract_address: row.contract,
    token_standard: row.standard === 'erc721' ? 'ERC721' : 'ERC1155',
    token_id: row.token_id,
    chain: chain.name,
    chain_id: row.chain_id,
  };
  setIfPresent(entry, 'name', row.token_name ?? row.collection_name);
  setIfPresent(entry, 'symbol', row.symbol);
  setIfPresent(entry, 'description', row.description);
  setIfPresent(entry, 'image_url', row.image_url);
  setIfPresent(entry, 'last_sale_price', row.last_sale_price);
  if (row.has_uri) {
    // A long `data:` URI is the document itself: its parsed fields are served, not the URI.
    const metadata: Record<string, unknown> = {};
    setIfPresent(metadata, 'uri', servedTokenUri(row.uri));
    setIfPresent(metadata, 'attributes', attributesOf(row.attributes));
    if (Object.keys(metadata).length > 0) entry.metadata = metadata;
  }
  entry.balance = row.balance;
  entry.last_acquired = utcIso(row.last_acquired);
  entry.is_spam = row.is_spam ?? false;
  if (showScores && row.spam_score !== null) {
    entry.spam_score = row.spam_score;
    if (Array.isArray(row.spam_explanations)) entry.explanations = row.spam_explanations;
  }
  return entry;
}

/** GET /v1/evm/collectibles/{address} */
export function collectiblesRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/collectibles/:address',
      {
        config: { errorFormat: 'error' },
        schema: {
          tags: ['collectibles'],
          summary: 'NFTs (ERC721 and ERC1155) held by a wallet',
          description:
            'Current holdings with metadata, last sale price and spam verdicts; spam is hidden unless `filter_spam=false`. Ordered by chain, contract and token id; paginated with `next_offset`. A page ends early (with `next_offset`) once its entries reach 16 MiB; a `data:` token URI over 8 KiB and inline images over 8 KiB are left out (the parsed fields are served). Errors are JSON `{error}`.',
          operationId: 'getEvmCollectibles',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: { 200: collectiblesResponseSchema, ...errorResponses('error', false) },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const requestTime = new Date();
        const { address } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const { chains, warnings } = resolveChains(ctx.registry, query.chain_ids, {
          resultNoun: 'Collectibles',
          docsUrl: supportedChainsUrl(request),
        });
        const scope = [
          'collectibles',
          address,
          chains.map((c) => c.chainId).join(','),
          query.filter_spam,
        ].join('|');
        let after: CollectibleKey | undefined;
        if (query.offset) {
          const key = ctx.cursors.decode(scope, query.offset);
          if (!isCollectibleKey(key)) throw ctx.cursors.invalid();
          after = key;
        }
        const notReady = await chainsNotReady(ctx.statusSource, chains);
        if (notReady.length > 0) warnings.push(chainsNotReadyWarning(notReady, 'Collectibles'));
        const complete = await walletBackfillGate(ctx, reply, address, chains, warnings);

        const chainIds = chains.map((c) => c.chainId);
        return sendCached(
          request,
          reply,
          ctx.caching,
          {
            cacheable: notReady.length === 0 && complete,
            cacheControl: 'private, no-cache',
            requestTime,
            // Hidden spam is in no row: any verdict change on the chain may show or hide some.
            deps: () => [
              // Holdings only: an ERC20 or native transfer of the wallet leaves this answer.
              ...nftWalletDeps(address, chainIds),
              ...(query.filter_spam ? chainIds.map(spamDep) : []),
            ],
          },
          {
            load: async (): Promise<CollectiblesPage> => {
              if (chains.length === 0) return { entries: [], collections: [], next: undefined };
              const byId = new Map(chains.map((c) => [c.chainId, c]));
              return loadCollectiblesPage(
                ctx.db,
                {
                  wallet: address,
                  chainIds,
                  hideSpam: query.filter_spam,
                  after,
                  limit: query.limit,
                },
                (row) => shapeCollectible(row, byId.get(row.chain_id)!, query.show_spam_scores),
              );
            },
            deps: (page) => page.collections.map((c) => collectionDep(c.chain_id, c.contract)),
            render: (page, times) => {
              const body: Record<string, unknown> = { address, entries: page.entries };
              if (warnings.length > 0) body.warnings = warnings;
              if (page.next) body.next_offset = ctx.cursors.encode(scope, page.next);
              return { ...body, ...times };
            },
          },
        );
      },
    );
  };
}

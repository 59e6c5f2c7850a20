import type { FastifyInstance } from 'fastify';
import type { ChainConfig } from '../../chains/chain-config.js';
import {
  type ActivityPrice,
  priceEligible,
  priceToken,
  shapeActivityItem,
} from '../../shape/activity-shape.js';
import { priceHistoryWarning } from '../../wallets/price-coverage.js';
import { chainIdsParam, chainsNotReadyWarning, resolveChains } from '../chain-selector.js';
import { type ApiContext, type PricingLookups, supportedChainsUrl } from '../context.js';
import { cursorParam } from '../cursor.js';
import { addressListParam, walletAddressParam } from '../params/address-params.js';
import { enumListParam } from '../params/choice-params.js';
import { limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { type ActivityKey, type ActivityRow, selectActivity } from '../queries/activity-query.js';
import { chainsNotReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { type Dep, historyDep, walletDeps } from '../response-cache/cache-deps.js';
import type { PriceLookup } from '../response-cache/live-prices.js';
import { sendCached } from '../response-cache/send-cached.js';
import { activityResponseSchema } from '../schemas/activity-schemas.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { walletBackfillGate } from '../wallet-backfill.js';

export const activityTypes = [
  'approve',
  'burn',
  'call',
  'mint',
  'receive',
  'send',
  'swap',
  'transfer',
] as const;
export const assetTypes = ['native', 'erc20', 'erc721', 'erc1155'] as const;

const pathParams = defineParams({ address: walletAddressParam });
const queryParams = defineParams({
  chain_ids: chainIdsParam(),
  offset: cursorParam,
  limit: limitParam({ min: 1, max: 100, fallback: 20 }),
  token_address: addressListParam(100),
  activity_type: enumListParam(activityTypes, 'Only these activity types (comma-separated).'),
  asset_type: enumListParam(
    assetTypes,
    'Only these asset standards (comma-separated); excludes calls.',
  ),
});

/** Whether the feed query joins a current price to the row (moved native or ERC20, no swap). */

/**
 * The price of each row at its block time, for the rows priced now (a current price or pool):
 * null when the history has none then (the current price applies), undefined for rows not
 * priced (NFTs, swaps, calls, unpriced tokens). One history lookup per page.
 */
async function loadPriceHistory(
  rows: readonly ActivityRow[],
  pricing: PricingLookups | undefined,
): Promise<(number | null | undefined)[]> {
  const priced = rows.map((row) => row.current_price !== null || row.pool_size !== null);
  const wanted = rows.filter((_, i) => priced[i]);
  const atTime =
    pricing && wanted.length > 0
      ? await pricing.pricesAt(
          wanted.map((row) => ({
            chainId: row.chain_id,
            token: priceToken(row),
            time: new Date(row.block_time * 1000),
          })),
        )
      : [];
  let next = 0;
  return rows.map((_, i) => (priced[i] ? (atTime[next++] ?? null) : undefined));
}

/**
 * Prices of a page's rows: the price at each row's block time when the history has one, else
 * the current price (from `prices` when given, else as the query joined it); NFTs, swaps and
 * calls carry none. Undefined when a row is priced now but its history was not looked up.
 */
function pricePage(
  rows: readonly ActivityRow[],
  history: readonly (number | null | undefined)[],
  prices: PriceLookup | undefined,
): (ActivityPrice | undefined)[] | undefined {
  const out: (ActivityPrice | undefined)[] = [];
  for (const [i, row] of rows.entries()) {
    const live = prices && priceEligible(row) ? prices(row.chain_id, priceToken(row)) : undefined;
    const current = live === undefined ? row.current_price : (live?.price_usd ?? null);
    const poolSize = live === undefined ? row.pool_size : (live?.pool_size ?? null);
    if (current === null && poolSize === null) {
      out.push(undefined);
      continue;
    }
    const atTime = history[i];
    if (atTime === undefined) return undefined;
    const price = atTime ?? current;
    out.push(price === null ? undefined : { price_usd: price, pool_size: poolSize });
  }
  return out;
}

/** The current prices a page shows, and the history it read (to the latest block time per token). */
function activityPriceDeps(
  rows: readonly ActivityRow[],
  history: readonly (number | null | undefined)[],
  chains: ReadonlyMap<number, ChainConfig>,
): { tokens: Map<number, string[]>; deps: Dep[] } {
  const tokens = new Map<number, string[]>();
  const deps: Dep[] = [];
  for (const [i, row] of rows.entries()) {
    if (priceEligible(row)) {
      const list = tokens.get(row.chain_id) ?? [];
      list.push(priceToken(row));
      tokens.set(row.chain_id, list);
    }
    if (history[i] === undefined) continue;
    // Tokens quoted in the wrapped native are valued with its history at the same time.
    const wrapped = chains.get(row.chain_id)?.wrappedNative?.toLowerCase() ?? 'native';
    deps.push(
      historyDep(row.chain_id, priceToken(row), row.block_time),
      historyDep(row.chain_id, wrapped, row.block_time),
    );
  }
  return { tokens, deps };
}

export function activityKey(row: ActivityRow): ActivityKey {
  return [
    row.block_time,
    row.chain_id,
    row.block_number,
    row.tx_index,
    row.log_index,
    row.sub_index,
  ];
}

function isActivityKey(key: readonly (string | number)[]): key is ActivityKey {
  return (
    key.length === 6 &&
    typeof key[0] === 'number' &&
    typeof key[1] === 'number' &&
    typeof key[2] === 'string' &&
    /^\d+$/.test(key[2]) &&
    key.slice(3).every((part) => Number.isInteger(part))
  );
}

/** GET /v1/evm/activity/{address} */
export function activityRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/activity/:address',
      {
        config: { errorFormat: 'text' },
        schema: {
          tags: ['activity'],
          summary: 'Activity feed of a wallet, newest first',
          description:
            'Native, ERC20, ERC721 and ERC1155 movements, approvals, swaps and decoded contract calls of the wallet across the selected chains, newest first, with keyset pagination (`next_offset`). Errors are plain text.',
          operationId: 'getEvmActivity',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: { 200: activityResponseSchema, ...errorResponses('text', false) },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const { address } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const { chains, warnings } = resolveChains(ctx.registry, query.chain_ids, {
          resultNoun: 'Activity',
          docsUrl: supportedChainsUrl(request),
        });
        const scope = [
          'activity',
          address,
          chains.map((c) => c.chainId).join(','),
          query.activity_type?.join(',') ?? '',
          query.asset_type?.join(',') ?? '',
          query.token_address?.join(',') ?? '',
        ].join('|');
        let after: ActivityKey | undefined;
        if (query.offset) {
          const key = ctx.cursors.decode(scope, query.offset);
          if (!isActivityKey(key)) throw ctx.cursors.invalid();
          after = key;
        }
        const notReady = await chainsNotReady(ctx.statusSource, chains);
        if (notReady.length > 0) warnings.push(chainsNotReadyWarning(notReady, 'Activity'));
        const complete = await walletBackfillGate(ctx, reply, address, chains, warnings);

        const chainIds = chains.map((c) => c.chainId);
        const byId = new Map(chains.map((c) => [c.chainId, c]));
        return sendCached(
          request,
          reply,
          ctx.caching,
          {
            // A page that warns about a chain still indexing changes once it is ready.
            cacheable: notReady.length === 0 && complete,
            cacheControl: 'private, max-age=0, must-revalidate',
            etag: true,
            deps: () => walletDeps(address, chainIds),
          },
          {
            load: async () => {
              const rows =
                chains.length === 0
                  ? []
                  : await selectActivity(ctx.db, {
                      wallet: address,
                      chainIds,
                      types: query.activity_type,
                      assetTypes: query.asset_type,
                      tokens: query.token_address,
                      after,
                      limit: query.limit + 1,
                    });
              const page = rows.slice(0, query.limit);
              const coverage = await ctx.priceCoverage?.(chainIds);
              return { rows, page, history: await loadPriceHistory(page, ctx.pricing), coverage };
            },
            priced: ({ page, history }) => activityPriceDeps(page, history, byId).tokens,
            deps: ({ page, history }) => activityPriceDeps(page, history, byId).deps,
            render: ({ rows, page, history, coverage }, _times, livePrices) => {
              const prices = pricePage(page, history, livePrices);
              if (!prices) return undefined;
              // Wallets mode: rows valued at the current price for want of older prices, said so.
              const partial =
                coverage &&
                priceHistoryWarning(
                  page.filter((_, i) => prices[i] !== undefined && history[i] === null),
                  coverage,
                );
              const pageWarnings = partial ? [...warnings, partial] : warnings;
              const links = ctx.pricing?.tokenLinks;
              const body: Record<string, unknown> = {
                activity: page.map((row, i) =>
                  shapeActivityItem(
                    row,
                    byId.get(row.chain_id)!,
                    prices[i],
                    links && ((token) => links(row.chain_id, token)?.logo),
                  ),
                ),
              };
              if (pageWarnings.length > 0) body.warnings = pageWarnings;
              const last = page.at(-1);
              if (rows.length > query.limit && last) {
                body.next_offset = ctx.cursors.encode(scope, activityKey(last));
              }
              return body;
            },
          },
        );
      },
    );
  };
}

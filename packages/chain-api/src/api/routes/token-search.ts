import type { FastifyInstance } from 'fastify';
import { chainIdsParam, resolveChains } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { invalidParameter } from '../errors.js';
import { defineParams, type ParamSpec } from '../params/param-spec.js';
import { searchTokens } from '../queries/token-search-query.js';
import { requestContext } from '../request-context.js';
import { tokenListDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { tokenSearchResponseSchema } from '../schemas/token-search-schemas.js';

const minQueryLength = 3;
const maxQueryLength = 100;

const searchTextParam: ParamSpec<string> = {
  schema: { type: 'string', minLength: minQueryLength, maxLength: maxQueryLength },
  description: `Symbol or name prefix (case-insensitive), or a token address. Shorter than ${minQueryLength} characters after trimming: no results.`,
  required: true,
  parse(raw, name) {
    if (raw === undefined || raw.trim() === '') {
      throw invalidParameter(name, 'required (a symbol, name prefix or address)');
    }
    const text = raw.trim();
    if ([...text].length > maxQueryLength) {
      throw invalidParameter(name, `longer than ${maxQueryLength} characters`);
    }
    return text;
  },
};

/** The peer clamps `limit` into 1..50 rather than refusing it. */
const searchLimitParam: ParamSpec<number> = {
  schema: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
  description: 'Results, 1 to 50 (default 10); values outside are clamped.',
  parse(raw, name) {
    if (raw === undefined || raw === '') return 10;
    if (!/^-?\d+$/.test(raw))
      throw invalidParameter(name, `"${raw.slice(0, 40)}" is not an integer`);
    const value = raw.length > 15 ? (raw.startsWith('-') ? -1 : 50) : Number(raw);
    return Math.min(50, Math.max(1, value));
  },
};

const queryParams = defineParams({
  query: searchTextParam,
  chain_ids: chainIdsParam(),
  limit: searchLimitParam,
});

/** GET /v1/evm/search/tokens */
export function tokenSearchRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/search/tokens',
      {
        config: { errorFormat: 'detail' },
        schema: {
          tags: ['search'],
          summary: 'Search ERC20 tokens by symbol, name prefix or address',
          description:
            'Case-insensitive prefix match on symbol or name (or an exact address) across the served chains (all of them when `chain_ids` is omitted), ranked by pricing-pool liquidity, then holders, then `(chain_id, address)`. Queries shorter than 3 characters answer `[]`. Errors are JSON `{error: {message, code}}`.',
          operationId: 'searchEvmTokens',
          querystring: queryParams.schema,
          response: { 200: tokenSearchResponseSchema, ...errorResponses('detail', false) },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const query = queryParams.parse(request.query);
        const chains = query.chain_ids
          ? resolveChains(ctx.registry, query.chain_ids, {
              resultNoun: 'Tokens',
              docsUrl: supportedChainsUrl(request),
            }).chains
          : ctx.registry.served;
        const text = query.query;
        const address = /^0x[0-9a-fA-F]{40}$/.test(text) ? text.toLowerCase() : undefined;
        return sendCached(
          request,
          reply,
          ctx.caching,
          {
            cacheable: true,
            cacheControl: 'private, max-age=0, must-revalidate',
            etag: true,
            deps: chains.flatMap((c) => tokenListDeps(c.chainId)),
          },
          async () => {
            if ([...text].length < minQueryLength || chains.length === 0) return [];
            const rows = await searchTokens(ctx.db, {
              text,
              address,
              chainIds: chains.map((c) => c.chainId),
              limit: query.limit,
            });
            return rows.map((row) => ({
              chain_id: row.chain_id,
              address: row.address,
              token_type: 'ERC20',
              symbol: row.symbol ?? '',
              name: row.name ?? '',
              logo: ctx.pricing?.tokenLinks(row.chain_id, row.address)?.logo ?? null,
              decimals: row.decimals,
            }));
          },
        );
      },
    );
  };
}

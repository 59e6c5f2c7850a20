import type { FastifyInstance } from 'fastify';
import { blockTimeIso } from '../../shape/format.js';
import type { ApiContext } from '../context.js';
import { cursorParam } from '../cursor.js';
import { ApiError, invalidParameter } from '../errors.js';
import { parseAddress } from '../params/address-params.js';
import { limitParam } from '../params/number-params.js';
import { defineParams, type ParamSpec, quote } from '../params/param-spec.js';
import {
  type HolderKey,
  selectErc20Holders,
  selectNftHolders,
  tokenStandard,
} from '../queries/token-holders-query.js';
import { assertChainsReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { tokenDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { detailErrorSchema, errorResponses } from '../schemas/common-schemas.js';
import { tokenHoldersResponseSchema } from '../schemas/token-holder-schemas.js';

/** The `chain_id` path parameter: one numeric chain id. */
const chainIdPathParam: ParamSpec<number> = {
  schema: { type: 'integer' },
  description: 'Numeric chain id of a served chain.',
  required: true,
  parse(raw, name) {
    if (raw === undefined || raw === '') throw invalidParameter(name, 'required');
    if (!/^\d{1,15}$/.test(raw)) {
      throw invalidParameter(name, `${quote(raw)} is not a numeric chain id`);
    }
    return Number(raw);
  },
};

const pathParams = defineParams({
  chain_id: chainIdPathParam,
  address: {
    schema: { type: 'string', pattern: '^0x[a-fA-F0-9]{40}$' },
    description: 'Token contract address (ERC20, ERC721 or ERC1155).',
    required: true,
    parse: parseAddress,
  },
});
const queryParams = defineParams({
  limit: limitParam({ min: 1, max: 500, fallback: 500 }),
  offset: cursorParam,
});

function isHolderKey(key: readonly (string | number)[]): key is HolderKey {
  return (
    key.length === 2 &&
    typeof key[0] === 'string' &&
    /^\d{1,100}$/.test(key[0]) &&
    typeof key[1] === 'string' &&
    /^0x[0-9a-f]{40}$/.test(key[1])
  );
}

/** GET /v1/evm/token-holders/{chain_id}/{address} */
export function tokenHoldersRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/token-holders/:chain_id/:address',
      {
        config: { errorFormat: 'detail' },
        schema: {
          tags: ['token-holders'],
          summary: 'Holders of a token, largest balance first',
          description:
            'Wallets holding a positive balance of an ERC20 token (raw balance), or items of an ERC721/ERC1155 collection (count of tokens / sum of ERC1155 balances), largest first, ties by wallet; keyset-paged with `next_offset`. `first_acquired` is the block time of the first receipt; `has_initiated_transfer` is true once the holder sent some. 404 for a token the index never saw. Errors are JSON `{error: {message, code}}`.',
          operationId: 'getTokenHolders',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: {
            200: tokenHoldersResponseSchema,
            ...errorResponses('detail', true),
            404: {
              description: 'Unknown chain or token.',
              content: { 'application/json': { schema: detailErrorSchema } },
            },
          },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const { chain_id: chainId, address: token } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const chain = ctx.registry.served.find((c) => c.chainId === chainId);
        if (!chain) {
          throw new ApiError('NOT_FOUND', `Chain ${chainId} is not supported by this server`);
        }
        const scope = ['token-holders', chainId, token].join('|');
        let after: HolderKey | undefined;
        if (query.offset) {
          const key = ctx.cursors.decode(scope, query.offset);
          if (!isHolderKey(key)) throw ctx.cursors.invalid();
          after = key;
        }
        await assertChainsReady(ctx.statusSource, [chain]);
        const standard = await tokenStandard(ctx.db, chainId, token);
        if (standard === undefined) {
          throw new ApiError('NOT_FOUND', `Token ${token} not found on chain ${chainId}`);
        }
        return sendCached(
          request,
          reply,
          ctx.caching,
          {
            cacheable: true,
            cacheControl: 'private, max-age=0, must-revalidate',
            etag: true,
            deps: tokenDeps(chainId, token),
          },
          async () => {
            const select =
              standard === 'erc721' || standard === 'erc1155'
                ? selectNftHolders
                : selectErc20Holders;
            const rows = await select(ctx.db, {
              chainId,
              token,
              after,
              limit: query.limit + 1,
            });
            const page = rows.slice(0, query.limit);
            const body: Record<string, unknown> = {
              token_address: token,
              chain_id: chainId,
              holders: page.map((row) => {
                const holder: Record<string, unknown> = {
                  wallet_address: row.wallet,
                  balance: row.balance,
                };
                if (row.first_acquired !== null) {
                  holder.first_acquired = blockTimeIso(row.first_acquired);
                }
                holder.has_initiated_transfer = row.has_initiated_transfer;
                return holder;
              }),
            };
            const last = page.at(-1);
            if (rows.length > query.limit && last) {
              body.next_offset = ctx.cursors.encode(scope, [last.balance, last.wallet]);
            }
            return body;
          },
        );
      },
    );
  };
}

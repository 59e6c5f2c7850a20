import type { FastifyInstance } from 'fastify';
import { shapeTransaction } from '../../shape/transaction-shape.js';
import { chainIdsParam, chainsNotReadyWarning, resolveChains } from '../chain-selector.js';
import { type ApiContext, supportedChainsUrl } from '../context.js';
import { cursorParam } from '../cursor.js';
import { limitsOf } from '../limits/request-scope.js';
import { walletAddressParam } from '../params/address-params.js';
import { booleanParam } from '../params/choice-params.js';
import { limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import {
  type LogRow,
  selectTransactionLogs,
  selectTransactions,
  type TransactionKey,
} from '../queries/transactions-query.js';
import { chainsNotReady } from '../readiness.js';
import { requestContext } from '../request-context.js';
import { walletDeps } from '../response-cache/cache-deps.js';
import { sendCached } from '../response-cache/send-cached.js';
import { errorResponses } from '../schemas/common-schemas.js';
import { transactionsResponseSchema } from '../schemas/transaction-schemas.js';
import { walletBackfillGate } from '../wallet-backfill.js';

const pathParams = defineParams({ address: walletAddressParam });
const queryParams = defineParams({
  chain_ids: chainIdsParam(),
  offset: cursorParam,
  limit: limitParam({ min: 1, max: 100, fallback: 100 }),
  decode: booleanParam(false, 'Decode calldata and logs with the bundled signature registry.'),
});

function isTransactionKey(key: readonly (string | number)[]): key is TransactionKey {
  return (
    key.length === 4 &&
    typeof key[0] === 'number' &&
    Number.isFinite(key[0]) &&
    Number.isInteger(key[1]) &&
    typeof key[2] === 'string' &&
    /^\d{1,19}$/.test(key[2]) &&
    Number.isInteger(key[3])
  );
}

/** The warning of a page whose transactions emitted more logs than it shows (TX_MAX_LOGS). */
function logsTruncatedWarning(hashes: readonly string[], maxLogs: number) {
  return {
    code: 'LOGS_TRUNCATED',
    message: `Only the first ${maxLogs} logs (by log index) are shown for ${hashes.length} transaction(s): ${hashes.slice(0, 10).join(', ')}${hashes.length > 10 ? ', ...' : ''}.`,
  };
}

/** GET /v1/evm/transactions/{address} */
export function transactionsRoute(shared: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/transactions/:address',
      {
        config: { errorFormat: 'text' },
        schema: {
          tags: ['transactions'],
          summary: 'Transactions sent or received by a wallet, newest first',
          description:
            'Top-level transactions whose sender or recipient is the wallet, across the selected chains, newest first, keyset-paged (`next_offset`). `decode=true` adds `decoded` to the call and to each log whose signature is known. `logs` holds the logs the indexer stores: by default those it does not turn into typed rows (transfers, approvals, swaps appear in `/activity`); with `storeLogs: all` every log. Nonce, transaction type and fee caps are not stored and are omitted. Errors are plain text.',
          operationId: 'getEvmTransactions',
          params: pathParams.schema,
          querystring: queryParams.schema,
          response: { 200: transactionsResponseSchema, ...errorResponses('text', false) },
        },
      },
      async (request, reply) => {
        const ctx = requestContext(shared, request);
        const requestTime = new Date();
        const { address } = pathParams.parse(request.params);
        const query = queryParams.parse(request.query);
        const { chains, warnings } = resolveChains(ctx.registry, query.chain_ids, {
          resultNoun: 'Transactions',
          docsUrl: supportedChainsUrl(request),
        });
        const scope = ['transactions', address, chains.map((c) => c.chainId).join(',')].join('|');
        let after: TransactionKey | undefined;
        if (query.offset) {
          const key = ctx.cursors.decode(scope, query.offset);
          if (!isTransactionKey(key)) throw ctx.cursors.invalid();
          after = key;
        }
        const notReady = await chainsNotReady(ctx.statusSource, chains);
        if (notReady.length > 0) warnings.push(chainsNotReadyWarning(notReady, 'Transactions'));
        const complete = await walletBackfillGate(ctx, reply, address, chains, warnings);

        return sendCached(
          request,
          reply,
          ctx.caching,
          {
            cacheable: notReady.length === 0 && complete,
            cacheControl: 'private, no-cache',
            requestTime,
            deps: walletDeps(
              address,
              chains.map((c) => c.chainId),
            ),
          },
          async (times) => {
            const rows =
              chains.length === 0
                ? []
                : await selectTransactions(ctx.db, {
                    wallet: address,
                    chainIds: chains.map((c) => c.chainId),
                    after,
                    limit: query.limit + 1,
                  });
            const page = rows.slice(0, query.limit);
            const maxLogs = limitsOf(ctx.scope).maxLogsPerTransaction;
            const logs = await selectTransactionLogs(ctx.db, page, maxLogs + 1);
            const logsByTx = new Map<string, LogRow[]>();
            for (const log of logs) {
              const k = `${log.chain_id}:${log.block_number}:${log.tx_index}`;
              const list = logsByTx.get(k);
              if (list) list.push(log);
              else logsByTx.set(k, [log]);
            }
            const truncated: string[] = [];
            for (const row of page) {
              const list = logsByTx.get(`${row.chain_id}:${row.block_number}:${row.tx_index}`);
              if (list && list.length > maxLogs) {
                list.length = maxLogs;
                truncated.push(row.hash);
              }
            }
            const pageWarnings: unknown[] = [...warnings];
            if (truncated.length > 0) pageWarnings.push(logsTruncatedWarning(truncated, maxLogs));
            const byId = new Map(chains.map((c) => [c.chainId, c]));
            const body: Record<string, unknown> = {
              wallet_address: address,
              transactions: page.map((row) =>
                shapeTransaction(
                  address,
                  row,
                  logsByTx.get(`${row.chain_id}:${row.block_number}:${row.tx_index}`) ?? [],
                  byId.get(row.chain_id),
                  query.decode,
                ),
              ),
            };
            if (pageWarnings.length > 0) body.warnings = pageWarnings;
            const last = page.at(-1);
            if (rows.length > query.limit && last) {
              body.next_offset = ctx.cursors.encode(scope, [
                last.block_time,
                last.chain_id,
                last.block_number,
                last.tx_index,
              ]);
            }
            return { ...body, ...times };
          },
        );
      },
    );
  };
}

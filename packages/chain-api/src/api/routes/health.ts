import type { FastifyInstance } from 'fastify';
import type { ReadServerStatus } from '../../replicas/read-server.js';
import type { ApiContext } from '../context.js';

/** What /health shows of the read path when reads go to standbys. */
export interface ReadServersHealth {
  change_feed: 'connected' | 'down';
  read_servers: ReadServerStatus[];
}

const healthSchema = {
  type: 'object',
  required: ['status', 'chains'],
  properties: {
    status: { type: 'string', enum: ['ok', 'syncing', 'error'] },
    database: { type: 'string', enum: ['ok', 'unreachable'] },
    // With DATABASE_READ_URL: whether change notifications arrive (while down, the response
    // cache is bypassed and standbys are held to the primary's position once a second) ...
    change_feed: { type: 'string', enum: ['connected', 'down'] },
    // ... and the primary and each standby, as the read router sees them.
    read_servers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          role: { type: 'string', enum: ['primary', 'standby'] },
          state: {
            type: 'string',
            enum: ['starting', 'ok', 'lagging', 'down', 'misconfigured'],
          },
          lsn: { type: ['string', 'null'] },
          lag_bytes: { type: ['integer', 'null'] },
          lag_seconds: { type: ['number', 'null'] },
          queries: { type: 'integer' },
          error: { type: 'string' },
        },
      },
    },
    chains: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          chain_id: { type: 'integer' },
          name: { type: 'string' },
          head_block: { type: ['integer', 'null'] },
          indexed_block: { type: ['integer', 'null'] },
          lag_seconds: { type: ['number', 'null'] },
          ready: { type: 'boolean' },
          error: { type: 'string' },
          traces: { type: 'string', enum: ['supported', 'unsupported', 'unknown'] },
          // Balance reconciliation (src/reconcile): tokens that do not conserve and RPC cost.
          reconcile: {
            type: 'object',
            properties: {
              enabled: { type: 'boolean' },
              reconciled_block: { type: ['integer', 'null'] },
              non_conserving_tokens: { type: 'integer' },
              last_batch_reads: { type: 'integer' },
              last_batch_rpc_calls: { type: 'integer' },
              reads_per_batch: { type: 'number' },
              total_reads: { type: 'integer' },
            },
          },
          // Wallets mode (src/wallets): tracked wallets and the running backfills' progress.
          wallets: {
            type: 'object',
            properties: {
              mode: { type: 'string' },
              tracked: { type: 'integer' },
              max_wallets: { type: 'integer' },
              max_wallets_per_key: { type: 'integer' },
              ready: { type: 'integer' },
              pending: { type: 'integer' },
              discovery: { type: 'string' },
              warning: { type: 'string' },
              completed: { type: 'integer' },
              failed: { type: 'integer' },
              running: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    wallet: { type: 'string' },
                    phase: { type: 'string' },
                    transactions: { type: 'integer' },
                    fetched: { type: 'integer' },
                    seconds: { type: 'number' },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/**
 * GET /health (no key, not rate limited): 200 with `ok` when every chain is ready, `syncing`
 * while some backfill or lost their node; 503 `error` when the database is unreachable.
 */
export function healthRoute(
  ctx: ApiContext & { ping(): Promise<void>; readServers?: (() => ReadServersHealth) | undefined },
) {
  return async (app: FastifyInstance) => {
    app.get(
      '/health',
      {
        config: { errorFormat: 'error', rateLimit: false },
        schema: {
          tags: ['health'],
          summary: 'Liveness and indexing progress',
          operationId: 'getHealth',
          security: [],
          response: { 200: healthSchema, 503: healthSchema },
        },
      },
      async (_request, reply) => {
        const readServers = () => ctx.readServers?.() ?? {};
        reply.header('cache-control', 'no-store');
        let chains: Awaited<ReturnType<ApiContext['statusSource']['status']>>;
        try {
          // Bounded by the API pool's timeouts: a frozen database is a 503, not a hang.
          await ctx.ping();
          chains = await ctx.statusSource.status();
        } catch {
          return reply
            .code(503)
            .send({ status: 'error', database: 'unreachable', chains: [], ...readServers() });
        }
        const status = chains.every((chain) => chain.ready) ? 'ok' : 'syncing';
        return { status, database: 'ok', chains, ...readServers() };
      },
    );
  };
}

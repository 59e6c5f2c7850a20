import type { FastifyInstance } from 'fastify';
import type { ModeStatus } from '../../ingest/indexer-mode.js';
import { periodBounds } from '../../keys/usage-period.js';
import type { UsageTotals } from '../../keys/usage-store.js';
import type { ReadServerStatus } from '../../replicas/read-server.js';
import { type DeliveryStats, deliveryStats } from '../../store/subscriptions/delivery-stats.js';
import type { Dispatcher } from '../../subscriptions/dispatcher.js';
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
    // The webhook outbox (src/subscriptions): deliveries by status, the oldest waiting one's age
    // and this process's dispatcher counters.
    webhooks: {
      type: 'object',
      properties: {
        pending: { type: 'integer' },
        sending: { type: 'integer' },
        oldest_pending_seconds: { type: 'number' },
        dispatcher: {
          type: 'object',
          properties: {
            attempts: { type: 'integer' },
            delivered: { type: 'integer' },
            failed_attempts: { type: 'integer' },
            events_delivered: { type: 'integer' },
            in_flight: { type: 'integer' },
          },
        },
      },
    },
    // Every key's compute units and answered keyed requests this UTC day and month (never per key).
    usage: {
      type: 'object',
      properties: Object.fromEntries(
        ['day', 'month'].map((period) => [
          period,
          {
            type: 'object',
            properties: {
              start: { type: 'string', format: 'date-time' },
              compute_units: { type: 'integer' },
              requests: { type: 'integer' },
            },
          },
        ]),
      ),
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
          // Secondary indexes a cold backfill deferred, still to build (the chain is not ready).
          deferred_indexes: { type: 'integer' },
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
              // How many backfills run now; which wallets is nobody's business on a public page.
              running: { type: 'integer' },
            },
          },
        },
      },
    },
  },
};

type Chains = Awaited<ReturnType<ApiContext['statusSource']['status']>>;

/** A chain's status without per-wallet data: running backfills as a count. */
function publicChain(chain: Chains[number]): Chains[number] {
  const wallets = chain.wallets;
  const running = (wallets as { running?: unknown } | undefined)?.running;
  if (!wallets || !Array.isArray(running)) return chain;
  const counted: ModeStatus & { running: number } = { ...wallets, running: running.length };
  return { ...chain, wallets: counted };
}

/** The usage totals as /health shows them; undefined when they cannot be read now. */
async function usageTotals(read: (() => Promise<UsageTotals>) | undefined, now: Date) {
  if (!read) return undefined;
  const totals = await read().catch(() => undefined);
  if (!totals) return undefined;
  const shown = (start: Date, t: UsageTotals['day']) => ({
    start: start.toISOString(),
    compute_units: t.computeUnits,
    requests: t.requests,
  });
  return {
    day: shown(periodBounds('day', now).start, totals.day),
    month: shown(periodBounds('month', now).start, totals.month),
  };
}

/**
 * GET /health (no key, not rate limited): 200 with `ok` when every chain is ready, `syncing`
 * while some backfill or lost their node; 503 `error` when the database is unreachable. Shows
 * totals only: no key, wallet or per-client data (it is public).
 */
export function healthRoute(
  ctx: ApiContext & {
    ping(): Promise<void>;
    readServers?: (() => ReadServersHealth) | undefined;
    webhooks?: Pick<Dispatcher, 'counters'> | undefined;
    /** Every key's compute-unit totals (absent: no `usage` field). */
    usage?: (() => Promise<UsageTotals>) | undefined;
  },
) {
  // /health is public and not rate limited: the outbox count is read at most once a second,
  // shared by the callers of that second, so a flood of health checks costs one query.
  let outboxMemo: { at: number; value: Promise<DeliveryStats | undefined> } | undefined;
  const outboxStats = () => {
    const at = Date.now();
    if (!outboxMemo || at - outboxMemo.at > 1_000) {
      outboxMemo = { at, value: deliveryStats(ctx.writeDb).catch(() => undefined) };
    }
    return outboxMemo.value;
  };
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
        let chains: Chains;
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
        const stats = await outboxStats();
        const dispatcher = ctx.webhooks?.counters();
        const webhooks = stats
          ? { webhooks: { ...stats, ...(dispatcher ? { dispatcher } : {}) } }
          : {};
        const usage = await usageTotals(ctx.usage, new Date());
        return {
          status,
          database: 'ok',
          ...(usage ? { usage } : {}),
          chains: chains.map(publicChain),
          ...webhooks,
          ...readServers(),
        };
      },
    );
  };
}

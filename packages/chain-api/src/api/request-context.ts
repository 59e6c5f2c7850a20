import type { FastifyRequest } from 'fastify';
import type { ApiContext } from './context.js';
import type { PastStateReader } from './history/state-reader.js';
import { scopedReadDb } from './limits/bounded-db.js';
import { requestScope } from './limits/request-deadline.js';
import type { RequestScope } from './limits/request-scope.js';
import { scopedRpcs } from './limits/scoped-rpc.js';

/**
 * The context one request's handler works with: `ctx` with its store reads, node calls and
 * pricing statements bound to the request's scope (each statement waits for one of the API key's
 * slots and is cancelled at the deadline; node reads count against the request's budget).
 * Without a request deadline on the server: `ctx` itself.
 *
 * @example
 * app.get('/v1/evm/balances/:address', async (request, reply) => {
 *   const ctx = requestContext(shared, request);
 *   return ctx.db.query('select 1');
 * });
 */
export function requestContext(ctx: ApiContext, request: FastifyRequest): ApiContext {
  const scope = requestScope(request);
  if (!scope) return ctx;
  const db = scopedReadDb(ctx.db, scope);
  return {
    ...ctx,
    scope,
    db,
    pricing: ctx.pricing?.readingFrom ? ctx.pricing.readingFrom(db) : ctx.pricing,
    rpc: ctx.rpc && scopedRpcs(ctx.rpc, scope),
    pastState: ctx.pastState && readerFor(ctx.pastState, scope),
  };
}

/** `reader` with every read made for the request of `scope`. */
function readerFor(reader: PastStateReader, scope: RequestScope): PastStateReader {
  return {
    read: (chain, block, wallet, want) => reader.read(chain, block, wallet, { ...want, scope }),
    // The shared reader is the server's to close.
    close: async () => {},
  };
}

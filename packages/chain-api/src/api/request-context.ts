import type { FastifyRequest } from 'fastify';
import type { RpcClient } from '../rpc/create-rpc-client.js';
import type { ApiContext, PricingLookups } from './context.js';
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
 * The bound context inherits the shared fields from `ctx` (most requests are answered from the
 * response cache and never read the store: binding costs one small object): pass it on, do not
 * spread it.
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
  const holder = ctx as ApiContext & { [boundLayer]?: object };
  const layer = holder[boundLayer] ?? boundLayerOf(ctx);
  const bound = Object.create(layer) as Bound;
  bound.scope = scope;
  bound[views] = undefined;
  return bound;
}

const boundLayer = Symbol('request-bound layer');
const views = Symbol('request views');

interface Views {
  db?: ApiContext['db'];
  pricing?: PricingLookups | undefined;
  rpc?: ReadonlyMap<number, RpcClient> | undefined;
  pastState?: PastStateReader | undefined;
}

type Bound = ApiContext & { scope: RequestScope; [views]: Views | undefined };

/**
 * The prototype of `ctx`'s bound contexts: `ctx` below, getters above that make each view of
 * the request's scope when the handler first uses it.
 */
function boundLayerOf(ctx: ApiContext): object {
  const layer = Object.create(ctx) as object;
  // A getter that makes the view once per bound context, on first use.
  const view = <K extends keyof Views>(name: K, make: (bound: Bound) => Views[K]) => ({
    get(this: Bound): Views[K] {
      let made = this[views];
      if (!made) {
        made = {};
        this[views] = made;
      }
      if (!(name in made)) made[name] = make(this);
      return made[name];
    },
  });
  Object.defineProperties(layer, {
    db: view('db', (bound) => scopedReadDb(ctx.db, bound.scope)),
    pricing: view('pricing', (bound) => ctx.pricing?.readingFrom?.(bound.db) ?? ctx.pricing),
    rpc: view('rpc', (bound) => ctx.rpc && scopedRpcs(ctx.rpc, bound.scope)),
    pastState: view('pastState', (bound) => ctx.pastState && readerFor(ctx.pastState, bound.scope)),
  });
  Object.defineProperty(ctx, boundLayer, { value: layer });
  return layer;
}

/** `reader` with every read made for the request of `scope`. */
function readerFor(reader: PastStateReader, scope: RequestScope): PastStateReader {
  return {
    read: (chain, block, wallet, want) => reader.read(chain, block, wallet, { ...want, scope }),
    // The shared reader is the server's to close.
    close: async () => {},
  };
}

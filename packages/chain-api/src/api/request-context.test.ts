import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { QueryResult } from '@sluice/db';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRequestLimits } from '../config/request-limits-config.js';
import type { RpcClient } from '../rpc/create-rpc-client.js';
import type { ApiContext } from './context.js';
import { createCursorCodec } from './cursor.js';
import type { PastStateReader } from './history/state-reader.js';
import { registerRequestDeadline } from './limits/request-deadline.js';
import { limitsOf } from './limits/request-scope.js';
import { memoizedPricesAt } from './price-memo.js';
import type { ReadDb } from './queries/prepared-query.js';
import { requestContext } from './request-context.js';

const token = '0x00000000000000000000000000000000000000aa';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function collected(ref: WeakRef<object>): Promise<boolean> {
  // A WeakRef's target lives until the job that read it ends: let a few turns pass.
  for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  return ref.deref() === undefined;
}

/** A store and a node that count what reaches them. */
function sharedContext() {
  const seen = { statements: 0, nodeCalls: 0, pastReads: [] as unknown[] };
  const db: ReadDb = {
    async query<Row>(): Promise<QueryResult<Row>> {
      seen.statements++;
      return { rows: [], rowCount: 0 };
    },
    async exec() {},
  };
  const node: RpcClient = {
    label: 'node',
    async request<T>() {
      seen.nodeCalls++;
      return '0x1' as T;
    },
    async batch<T>() {
      seen.nodeCalls++;
      return [] as T[];
    },
    health: () => ({ healthy: true }) as unknown as ReturnType<RpcClient['health']>,
    close: async () => {},
  };
  const pastState: PastStateReader = {
    async read(_chain, _block, _wallet, want) {
      seen.pastReads.push(want.scope);
      return { native: null, tokens: [] };
    },
    close: async () => {},
  };
  // Prices read through whichever view of the store the lookups were given.
  const pricesFrom = (from: ReadDb) =>
    memoizedPricesAt(async (items) => {
      await from.query('select price');
      return items.map(() => 1);
    });
  const lookups = (from: ReadDb): NonNullable<ApiContext['pricing']> => ({
    pricesAt: pricesFrom(from),
    tokenLinks: () => undefined,
    readingFrom: lookups,
  });
  const ctx = {
    db,
    writeDb: db,
    cursors: createCursorCodec('0123456789abcdef0123456789abcdef'),
    rpc: new Map([[1, node]]),
    pastState,
    pricing: lookups(db),
  } as unknown as ApiContext;
  return { ctx, seen };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('requestContext', () => {
  it("binds the store, prices and node calls to the request's deadline", async () => {
    const { ctx, seen } = sharedContext();
    app = Fastify();
    registerRequestDeadline(app, { ...defaultRequestLimits, timeoutMs: 50, maxNodeReads: 7 });
    let bound: ApiContext | undefined;
    app.get('/slow', async (request) => {
      bound = requestContext(ctx, request);
      // Reads made while the request runs reach the store and the node.
      await bound.db.query('select 1');
      await bound.rpc?.get(1)?.request('eth_blockNumber', []);
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { late: true };
    });
    const res = await app.inject({ method: 'GET', url: '/slow' });
    expect(res.statusCode).toBe(503);
    expect(seen).toMatchObject({ statements: 1, nodeCalls: 1 });
    const request = bound as ApiContext;
    expect(limitsOf(request.scope).maxNodeReads).toBe(7);

    // Past the deadline nothing the request asks for reaches the store or the node.
    const timedOut = { code: 'REQUEST_TIMEOUT' };
    await expect(request.db.query('select 2')).rejects.toMatchObject(timedOut);
    const at = [{ chainId: 1, token, time: new Date() }];
    await expect(request.pricing?.pricesAt(at)).rejects.toMatchObject(timedOut);
    await expect(request.rpc?.get(1)?.request('eth_chainId', [])).rejects.toMatchObject(timedOut);
    expect(seen).toMatchObject({ statements: 1, nodeCalls: 1 });

    // Past-state reads carry the request's scope (its node-read budget and slots).
    await request.pastState?.read(
      { chainId: 1 } as Parameters<PastStateReader['read']>[0],
      1n,
      token,
      { native: true, tokens: [] },
    );
    expect(seen.pastReads).toEqual([request.scope]);

    // The shared context is untouched: work outside a request still runs.
    await ctx.db.query('select 3');
    await expect(ctx.pricing?.pricesAt(at)).resolves.toEqual([1]);
    expect(seen.statements).toBe(3);
    expect(limitsOf(ctx.scope)).toBe(defaultRequestLimits);
  });

  it('kept after the answer (a cached answer re-rendered later), it does not keep its request', async () => {
    const { ctx } = sharedContext();
    app = Fastify();
    registerRequestDeadline(app, defaultRequestLimits);
    const kept: ApiContext[] = [];
    let request: WeakRef<object> | undefined;
    app.get('/', async (req) => {
      const bound = requestContext(ctx, req);
      await bound.db.query('select 1');
      kept.push(bound);
      request = new WeakRef(req);
      return {};
    });
    expect((await app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
    expect(await collected(request as WeakRef<object>)).toBe(true);
    // Still usable: its statements run, charged to the key the request had.
    await expect(kept[0]?.db.query('select 2')).resolves.toMatchObject({ rowCount: 0 });
  });

  it('is the shared context on a server without request deadlines', async () => {
    const { ctx } = sharedContext();
    app = Fastify();
    let bound: ApiContext | undefined;
    app.get('/', async (request) => {
      bound = requestContext(ctx, request);
      return {};
    });
    expect((await app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
    expect(bound).toBe(ctx);
  });
});

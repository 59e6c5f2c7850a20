import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { QueryResult } from '@sluice/db';
import Fastify, { type FastifyReply } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReadDb } from '../queries/prepared-query.js';
import { LivePrices, type PriceLookup } from './live-prices.js';
import { ResponseCache } from './response-cache.js';
import { sendCached } from './send-cached.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const token = '0x00000000000000000000000000000000000000aa';

/** A store with one price row (what LivePrices reads). */
const db: ReadDb = {
  async query<Row>(): Promise<QueryResult<Row>> {
    const row = {
      token,
      price_usd: 2,
      pool_size: 1e6,
      low_liquidity: false,
      pool_type: null,
      pool_address: null,
      pool_tokens: null,
    };
    return { rows: [row as Row], rowCount: 1 };
  },
  async exec() {},
};

async function collected(ref: WeakRef<object>): Promise<boolean> {
  // A WeakRef's target lives until the job that read it ends: let a few turns pass.
  for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  return ref.deref() === undefined;
}

describe('sendCached', () => {
  const apps: { close(): Promise<unknown> }[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  it('keeps no request in a live (re-priced) entry: the entry outlives its request', async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const caching = { cache, following: () => true, prices: new LivePrices(db) };
    const replies: WeakRef<FastifyReply>[] = [];
    const app = Fastify();
    apps.push(app);
    app.get(
      '/held',
      {
        schema: {
          response: {
            200: {
              type: 'object',
              properties: { amount: { type: 'string' }, value_usd: { type: 'number' } },
            },
          },
        },
      },
      async (request, reply) => {
        replies.push(new WeakRef(reply));
        return sendCached(
          request,
          reply,
          caching,
          { cacheable: true, cacheControl: 'no-cache', deps: [] },
          {
            load: async () => ({ amount: '3' }),
            render: (data, _times, prices: PriceLookup | undefined) => ({
              amount: data.amount,
              value_usd: Number(data.amount) * (prices?.(1, token)?.price_usd ?? 0),
              // Not in the schema: a body that went through the route's serializer lacks it.
              unlisted: true,
            }),
            priced: () => new Map([[1, [token]]]),
          },
        );
      },
    );
    const first = await app.inject({ method: 'GET', url: '/held' });
    expect(first.json()).toEqual({ amount: '3', value_usd: 6 });
    expect(first.headers['x-cache']).toBe('miss');
    const second = await app.inject({ method: 'GET', url: '/held' });
    expect(second.headers['x-cache']).toBe('hit');
    expect(cache.size).toBe(1);
    // The entry renders again from its rows on a price change; it must not hold the reply (and
    // through it the request, its socket and logger) that first filled it.
    expect(await collected(replies[0]!)).toBe(true);
    expect(cache.size).toBe(1);
  });
});

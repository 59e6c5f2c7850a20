import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../src/chains/index.js';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import { startIndexers } from '../../src/wallets/start-indexers.js';
import {
  deployWorkload,
  playRandomOps,
  rpcCall,
  type Workload,
} from '../indexer/random-workload.js';
import { workloadChain } from '../indexer/workload-chain.js';
import { get, log, type Served, serveStore, waitFor } from '../wallets/wallets-harness.js';
import { watchRss } from './rss-watch.js';

/**
 * One key pre-tracks 10 x 10,000 fresh addresses on a wallets-mode chain (anvil with a small
 * random workload) while another key reads its wallets. Defaults throughout (10,000 wallets per
 * key, 100,000 per chain). The flood stays the flooding key's problem: each call answers in
 * bounded time and memory, the key keeps at most 10,000 wallets (its own least recently
 * requested are dropped), the other key's wallet keeps its data and answer, and a wallet the
 * other key then reads is backfilled ahead of the 10,000 queued ones.
 */
let anvil: AnvilInstance;
let w: Workload;
let s: Served;
let indexers: Awaited<ReturnType<typeof startIndexers>>;
let flooder: string;

const fresh = (call: number, i: number) =>
  `0x${(0xf100000000 + call * 100_000 + i).toString(16).padStart(40, '0')}`;

async function post(key: string, body: unknown): Promise<Response> {
  return fetch(`${s.url}/v1/evm/wallets/track`, {
    method: 'POST',
    headers: { 'x-sim-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await s.db.query<{ n: string }>(sql, params);
  return Number(rows[0]?.n);
}

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 6, 3);
  await playRandomOps(anvil.rpcUrl, w, { seed: 5, ops: 30, perBlock: 6 });
  await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [true]);
  const chain: ChainConfig = { ...workloadChain(anvil.rpcUrl, w), mode: 'wallets' };
  let status = () => [] as ReturnType<typeof indexers.status>;
  s = await serveStore(chain, { status: () => status() }, 30_000);
  indexers = await startIndexers({ db: s.db, chains: [chain], log, pollIntervalMs: 50 });
  status = () => indexers.status();
  await waitFor(() => indexers.status()[0]?.ready === true);
  flooder = (await createKeyStore(s.db).create({ name: 'flooder' })).key;
}, 300_000);

afterAll(async () => {
  // Drop the flood first, so stopping does not abort thousands of queued backfills mid-call.
  await s?.db.query('delete from tracked_wallet_owners');
  await waitFor(() => (indexers?.status()[0]?.wallets?.running.length ?? 0) === 0, 60_000).catch(
    () => {},
  );
  await indexers?.stop();
  await s?.app.close();
  await s?.t.drop();
  await anvil?.stop();
});

describe('POST /v1/evm/wallets/track flood', () => {
  it("stays within the flooding key: bounded calls, its own wallets evicted, others' kept and served first", async () => {
    const mine = w.wallets[0] as string;
    const balances = (wallet: string) => `/v1/evm/balances/${wallet}?chain_ids=31337`;
    const before = await get(s, balances(mine));
    expect(before.status).toBe(200);
    expect(before.body.warnings).toBeUndefined();

    const rss = watchRss();
    let slowest = 0;
    for (let call = 0; call < 10; call++) {
      const addresses = Array.from({ length: 10_000 }, (_, i) => fresh(call, i));
      const t0 = performance.now();
      const res = await post(flooder, { addresses });
      slowest = Math.max(slowest, performance.now() - t0);
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ tracked: 10_000, chain_ids: [31337] });
    }
    // A wallet the other key reads now is backfilled ahead of the flooder's queue.
    const other = w.wallets[1] as string;
    const t0 = performance.now();
    await waitFor(async () => {
      const page = await get(s, balances(other));
      return page.status === 200 && page.body.warnings === undefined;
    }, 90_000);
    const readWait = performance.now() - t0;
    // The flooder keeps its 10,000 most recent wallets; nobody else loses any.
    await waitFor(
      async () =>
        (await count(
          `select count(*)::text as n from tracked_wallet_owners o join api_keys k on k.id = o.key_id
            where k.name = 'flooder'`,
        )) <= 10_000,
      60_000,
    );
    rss.stop();
    expect(slowest).toBeLessThan(20_000);
    expect(readWait).toBeLessThan(90_000);
    expect(rss.growthMiB()).toBeLessThan(500);
    expect(await count('select count(*)::text as n from tracked_wallets')).toBeLessThanOrEqual(
      10_002,
    );
    // The last call's addresses are the ones kept.
    expect(
      await count(
        'select count(*)::text as n from tracked_wallets where wallet = any($1::text[])',
        [Array.from({ length: 10_000 }, (_, i) => fresh(9, i))],
      ),
    ).toBe(10_000);
    const after = await get(s, balances(mine));
    expect(after.body.warnings).toBeUndefined();
    expect(after.body).toEqual(before.body);
  }, 400_000);

  it('refuses an oversized or malformed body; duplicates count once; a wallet of two keys stays while one keeps it', async () => {
    const tooMany = Array.from({ length: 10_001 }, (_, i) => fresh(20, i));
    expect((await post(flooder, { addresses: tooMany })).status).toBe(400);
    expect((await post(flooder, { addresses: ['0x12'] })).status).toBe(400);
    expect((await post(flooder, { addresses: [] })).status).toBe(400);
    expect(
      (await post(flooder, { addresses: [fresh(21, 1)], chain_ids: Array(2_000).fill(31337) }))
        .status,
    ).toBe(400);
    const dup = fresh(21, 2);
    const res = await post(flooder, {
      addresses: [dup, dup.toUpperCase().replace('0X', '0x'), dup],
    });
    expect(await res.json()).toEqual({ tracked: 1, chain_ids: [31337] });
    // The test key's wallet, pre-tracked by the flooder too, and then pushed out of the
    // flooder's 10,000: still tracked (the test key holds it), data kept.
    const shared = w.wallets[0] as string;
    expect((await post(flooder, { addresses: [shared] })).status).toBe(202);
    const push = Array.from({ length: 10_000 }, (_, i) => fresh(22, i));
    expect((await post(flooder, { addresses: push })).status).toBe(202);
    await waitFor(
      async () =>
        (await count(
          `select count(*)::text as n from tracked_wallet_owners o join api_keys k on k.id = o.key_id
            where k.name = 'flooder' and o.wallet = $1`,
          [shared],
        )) === 0,
      60_000,
    );
    expect(
      await count(
        "select count(*)::text as n from tracked_wallets where wallet = $1 and status = 'ready'",
        [shared],
      ),
    ).toBe(1);
    expect(
      await count('select count(*)::text as n from activity where wallet = $1', [shared]),
    ).toBeGreaterThan(0);
  }, 200_000);
});

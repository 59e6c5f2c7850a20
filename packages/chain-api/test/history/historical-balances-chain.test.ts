import pino from 'pino';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/api/server.js';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce } from '../../src/ingest/index.js';
import { rpcCall } from '../indexer/random-workload.js';
import { deployZoo, playZoo, type TokenZoo, zooChain, zooTokens } from '../reconcile/token-zoo.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { assertMatchesReference, referenceAvailable } from '../support/reference-schemas.js';

/**
 * Balances at past blocks equal the chain: every wallet of a seeded scenario with rebasing,
 * reflection, WETH9-clone and silently crediting tokens plus a plain ERC20 and native ETH,
 * compared with balanceOf / eth_getBalance at those blocks on anvil.
 */
const log = pino({ level: 'silent' });
const balanceOf = parseAbi(['function balanceOf(address) view returns (uint256)']);
let anvil: AnvilInstance;
let z: TokenZoo;
let api: TestApi;
let head = 0n;
let firstZooBlock = 0n;

type Body = {
  balances: { address: string; amount: string; chain_id: number }[];
  block_number?: number;
  block_time?: string;
  next_offset?: string;
  warnings?: { code: string; message: string }[];
};

async function get(path: string): Promise<{ status: number; body: Body }> {
  const res = await api.get(path, { 'x-sim-api-key': api.key, 'cache-control': 'no-cache' });
  return { status: res.status, body: (await res.json()) as Body };
}

async function chainBalances(wallet: Hex, block: bigint): Promise<Map<string, string>> {
  const tag = `0x${block.toString(16)}`;
  const out = new Map<string, string>();
  const native = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_getBalance', [wallet, tag]));
  if (native > 0n) out.set('native', native.toString());
  for (const token of zooTokens(z)) {
    const raw = await rpcCall<Hex>(anvil.rpcUrl, 'eth_call', [
      { to: token, data: encodeFunctionData({ abi: balanceOf, args: [wallet] }) },
      tag,
    ]);
    const v = raw === '0x' ? 0n : BigInt(raw);
    if (v > 0n) out.set(token, v.toString());
  }
  return out;
}

beforeAll(async () => {
  anvil = await startAnvil();
  z = await deployZoo(anvil.rpcUrl, 5, 41);
  firstZooBlock = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
  await playZoo(anvil.rpcUrl, z, { seed: 42, ops: 60, perBlock: 3 });
  head = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
  api = await startTestApi({ chains: [zooChain(anvil.rpcUrl, z)] });
  await indexOnce({ db: api.t.db, chains: [zooChain(anvil.rpcUrl, z)], log, batchSize: 7 });
}, 180_000);
afterAll(async () => {
  await api?.close();
  await anvil?.stop();
});

describe('balances at a past block equal the chain', () => {
  it('every wallet, every token kind and native, at several past blocks', async () => {
    const blocks = [
      1n,
      firstZooBlock / 2n,
      firstZooBlock,
      (firstZooBlock + head) / 2n,
      head - 3n,
      head,
    ];
    const wrong: string[] = [];
    let compared = 0;
    for (const block of blocks) {
      for (const w of [...z.wallets, z.deployer, z.bystander]) {
        const { status, body } = await get(
          `/v1/evm/balances/${w}?chain_ids=31337&block_number=${block}`,
        );
        expect(status).toBe(200);
        expect(body.block_number).toBe(Number(block));
        expect(body.warnings).toBeUndefined();
        const served = new Map(body.balances.map((b) => [b.address, b.amount]));
        const truth = await chainBalances(w, block);
        for (const b of body.balances) expect(BigInt(b.amount) > 0n).toBe(true);
        // The bystander is only named by plain-token events: its silent credits are a known limit.
        const keys = new Set([...truth.keys(), ...served.keys()]);
        for (const k of keys) {
          if (w === z.bystander && k === z.silent && !served.has(k)) continue;
          compared++;
          if (served.get(k) !== truth.get(k)) {
            wrong.push(`${w} ${k} @${block}: served ${served.get(k)}, chain ${truth.get(k)}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThan(100);
  });

  it('as_of resolves to the last block at or before that time; both given is a 400', async () => {
    const block = (firstZooBlock + head) / 2n;
    const { rows } = await api.t.db.query<{ t: string }>(
      'select extract(epoch from timestamp)::bigint::text as t from blocks where chain_id = 31337 and number = $1',
      [block.toString()],
    );
    const t = Number(rows[0]?.t);
    const w = z.wallets[0] as Hex;
    const { status, body } = await get(`/v1/evm/balances/${w}?chain_ids=31337&as_of=${t}`);
    expect(status).toBe(200);
    const resolved = BigInt(body.block_number ?? -1);
    expect(resolved).toBeGreaterThanOrEqual(block);
    expect(Date.parse(body.block_time ?? '')).toBeLessThanOrEqual(t * 1000);
    const next = await api.t.db.query<{ n: string }>(
      `select count(*)::text as n from blocks where chain_id = 31337 and number > $1
          and timestamp <= to_timestamp($2)`,
      [resolved.toString(), t],
    );
    expect(next.rows[0]?.n).toBe('0');
    const iso = new Date(t * 1000).toISOString();
    const same = await get(`/v1/evm/balances/${w}?chain_ids=31337&as_of=${iso}`);
    expect(same.body.block_number).toBe(body.block_number);
    const both = await get(`/v1/evm/balances/${w}?chain_ids=31337&as_of=${t}&block_number=3`);
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toMatch(/either block_number or as_of/);
  });

  it('pages of 2 list exactly the full answer, filters apply, schema matches the peer', async () => {
    const w = z.wallets[1] as Hex;
    const base = `/v1/evm/balances/${w}?chain_ids=31337&block_number=${head - 5n}`;
    const full = await get(base);
    if (referenceAvailable()) assertMatchesReference('BalancesResponse', full.body);
    const paged: string[] = [];
    let offset: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await get(`${base}&limit=2${offset ? `&offset=${offset}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.balances.length).toBeLessThanOrEqual(2);
      paged.push(...page.body.balances.map((b) => `${b.address}:${b.amount}`));
      offset = page.body.next_offset;
      if (!offset) break;
    }
    expect(paged).toEqual(full.body.balances.map((b) => `${b.address}:${b.amount}`));
    expect(full.body.balances.length).toBeGreaterThan(2);
    const erc20 = await get(`${base}&filters=erc20`);
    expect(erc20.body.balances.map((b) => b.address)).toEqual(
      full.body.balances.filter((b) => b.address !== 'native').map((b) => b.address),
    );
    const native = await get(`${base}&filters=native`);
    expect(native.body.balances.map((b) => b.address)).toEqual(['native']);
    // A cursor of another block is refused.
    const first = await get(`${base}&limit=1`);
    const other = await get(
      `/v1/evm/balances/${w}?chain_ids=31337&block_number=${head - 4n}&limit=1&offset=${first.body.next_offset}`,
    );
    expect(other.status).toBe(400);
  });

  it('blocks outside the indexed range, bad values and chain rules are 400s in the {message} format', async () => {
    const w = z.wallets[0] as Hex;
    const cases: [string, RegExp][] = [
      [`chain_ids=31337&block_number=${head + 1n}`, /above the last indexed block/],
      ['chain_ids=31337&block_number=-1', /not a block number/],
      ['chain_ids=31337&block_number=1.5', /not a block number/],
      ['chain_ids=31337&block_number=abc', /not a block number/],
      ['block_number=3', /chain_ids.*required with block_number/],
      ['chain_ids=31337,1&block_number=3', /exactly one chain/],
      ['chain_ids=31337&as_of=yesterday', /not a time/],
      ['chain_ids=31337&as_of=2001-01-01T00:00:00Z', /before the first indexed block/],
      ['chain_ids=31337&as_of=2999-01-01T00:00:00Z', /after the last indexed block/],
      ['chain_ids=31337&block_number=3&block_number=4', /more than once/],
    ];
    for (const [q, message] of cases) {
      const res = await api.get(`/v1/evm/balances/${w}?${q}`);
      expect(res.status, q).toBe(400);
      const body = (await res.json()) as { message: string };
      expect(body.message, q).toMatch(message);
    }
  });

  it('a node that cannot serve past state: those balances are left out with a warning, never guessed', async () => {
    const chain = { ...zooChain(anvil.rpcUrl, z), rpcUrl: 'http://127.0.0.1:9' };
    const app = await createApiServer({
      db: api.serverDb,
      chains: [chain],
      statusSource: {
        status: () => [
          {
            chain_id: 31337,
            name: 'devnet',
            head_block: 1,
            indexed_block: 1,
            lag_seconds: 0,
            ready: true,
          },
        ],
      },
      cursorSecret: 'test-cursor-secret-0123456789abcdef',
      rateLimit: { max: 1_000_000, windowMs: 60_000 },
    });
    try {
      const w = z.wallets[2] as Hex;
      const res = await app.inject({
        url: `/v1/evm/balances/${w}?chain_ids=31337&block_number=${head - 2n}`,
        headers: { 'x-sim-api-key': api.key },
      });
      expect(res.statusCode).toBe(200);
      const body = res.json() as Body;
      expect(body.warnings?.[0]?.code).toBe('HISTORICAL_STATE_UNAVAILABLE');
      // Only the plain (conserving) token can come from the store alone.
      const truth = await chainBalances(w, head - 2n);
      for (const b of body.balances) {
        expect(b.address).toBe(z.plain);
        expect(b.amount).toBe(truth.get(z.plain));
      }
    } finally {
      await app.close();
    }
  });
});

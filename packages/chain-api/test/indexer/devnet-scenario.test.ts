import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Devnet, startDevnet } from '../../src/devnet/index.js';
import { indexOnce } from '../../src/ingest/index.js';
import { chainMigrations } from '../../src/store/index.js';
import { checkGroundTruth } from './ground-truth.js';
import { rpcCall } from './random-workload.js';

const log = pino({ level: 'silent' });
let devnet: Devnet;
let t: TestDatabase;
let db: Database;

beforeAll(async () => {
  devnet = await startDevnet();
  t = await createTestDatabase('postgres');
  db = t.db;
  await migrate(db, chainMigrations);
  await indexOnce({ db, chains: [devnet.chain], log });
}, 240_000);
afterAll(async () => {
  await t?.drop();
  await devnet?.stop();
});

describe('the devnet scenario', () => {
  it('holds ground truth for every stored balance and holding', async () => {
    const m = devnet.manifest;
    const nfts = [m.nfts.punks, m.nfts.shapes, m.nfts.broken, m.nfts.spam].map((c) => ({
      contract: c.address,
      ids: Array.from({ length: 30 }, (_, i) => BigInt(i)),
    }));
    const gt = await checkGroundTruth(db, devnet.rpcUrl, 31337, { erc721: nfts });
    expect(gt.mismatches).toEqual([]);
    expect(gt.checked).toBeGreaterThan(200);
    // Every named wallet has its ERC20s and its native balance stored.
    const { rows } = await db.query<{ n: string }>(
      'select count(distinct wallet) as n from native_balances where wallet = any($1)',
      [Object.values(m.wallets)],
    );
    expect(Number(rows[0]?.n)).toBe(Object.keys(m.wallets).length);
  });

  it('tracks every pool of the configured factories with its on-chain state', async () => {
    const m = devnet.manifest;
    const { rows } = await db.query<{
      address: string;
      dex: string;
      token0: string;
      token1: string;
      reserve0: string | null;
      reserve1: string | null;
      sqrt_price_x96: string | null;
    }>('select address, dex, token0, token1, reserve0, reserve1, sqrt_price_x96 from pools');
    const byAddress = new Map(rows.map((r) => [r.address, r]));
    const pairAbi = parseAbi([
      'function getReserves() view returns (uint112, uint112, uint32)',
      'function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)',
    ]);
    for (const p of Object.values(m.pools)) {
      const row = byAddress.get(p.address);
      expect(row, p.address).toMatchObject({ dex: p.type, token0: p.token0, token1: p.token1 });
      if (p.type === 'uniswap_v2') {
        const out = await rpcCall<Hex>(devnet.rpcUrl, 'eth_call', [
          {
            to: p.address,
            data: encodeFunctionData({ abi: pairAbi, functionName: 'getReserves' }),
          },
          'latest',
        ]);
        expect(row?.reserve0).toBe(BigInt(out.slice(0, 66)).toString());
        expect(row?.reserve1).toBe(BigInt(`0x${out.slice(66, 130)}`).toString());
      } else {
        const out = await rpcCall<Hex>(devnet.rpcUrl, 'eth_call', [
          { to: p.address, data: encodeFunctionData({ abi: pairAbi, functionName: 'slot0' }) },
          'latest',
        ]);
        expect(row?.sqrt_price_x96).toBe(BigInt(out.slice(0, 66)).toString());
      }
    }
    const states = await db.query<{ n: string }>('select count(*) as n from pool_states');
    expect(Number(states.rows[0]?.n)).toBeGreaterThan(Object.keys(m.pools).length);
  });

  it('reads token metadata, tolerating bytes32 and reverting getters', async () => {
    const m = devnet.manifest;
    const { rows } = await db.query<{
      address: string;
      symbol: string | null;
      name: string | null;
      decimals: number | null;
      status: string;
    }>('select address, symbol, name, decimals, status from tokens');
    const by = new Map(rows.map((r) => [r.address, r]));
    for (const key of ['usdc', 'weth', 'slc', 'wbtc', 'ilq', 'scam', 'spam', 'b32'] as const) {
      const tok = m.tokens[key];
      expect(by.get(tok.address), key).toMatchObject({
        symbol: tok.symbol,
        name: tok.name,
        decimals: tok.decimals,
        status: 'ok',
      });
    }
    expect(by.get(m.tokens.rvt.address)).toMatchObject({
      symbol: null,
      name: null,
      status: 'failed',
    });
    expect(by.get(m.nfts.items.address)?.symbol).toBe(m.nfts.items.symbol);
  });

  it('records the scenario sales and swap activity', async () => {
    const m = devnet.manifest;
    const { rows } = await db.query<{
      tx_hash: string;
      payment_token: string;
      price: string;
      buyer: string;
    }>('select tx_hash, payment_token, price, buyer from nft_sales');
    for (const sale of m.sales) {
      const got = rows.filter((r) => r.tx_hash === sale.txHash.toLowerCase());
      expect(got.length, sale.txHash).toBeGreaterThan(0);
      expect(got[0]).toMatchObject({
        payment_token: sale.paymentToken,
        price: sale.pricePerToken,
        buyer: sale.buyer,
      });
    }
    const swaps = await db.query<{ extra: Record<string, string> }>(
      `select extra from activity where type = 'swap'`,
    );
    expect(swaps.rows.length).toBeGreaterThan(0);
    for (const s of swaps.rows) {
      expect(BigInt(s.extra.from_token_value ?? '0')).toBeGreaterThan(0n);
      expect(BigInt(s.extra.to_token_value ?? '0')).toBeGreaterThan(0n);
      expect(s.extra.from_token_address).not.toBe(s.extra.to_token_address);
    }
    // Router swaps are described by the swap row, not a duplicate call row.
    const calls = await db.query<{ n: string }>(
      `select count(*) as n from activity a where a.type = 'call' and a.extra->'function'->>'name' like 'swap%'
         and a.extra->>'status' = 'success'`,
    );
    expect(calls.rows[0]?.n).toBe('0');
  });
});

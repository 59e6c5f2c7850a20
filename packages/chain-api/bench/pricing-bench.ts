/**
 * Pricing worker benchmark: how many pool-state rows per second the worker turns into prices,
 * and how long `historical_prices=1,24,168` lookups take for a 1,000-token wallet.
 *
 *   npx tsx bench/pricing-bench.ts [--tokens 1000] [--blocks 3000] [--swaps-per-block 20] [--db postgres|pglite|both]
 *
 * The store is synthetic but shaped like a busy chain: every token has a v2 pair against the
 * wrapped native (half of them also one against the stablecoin), the wrapped native/stablecoin
 * pair moves every block, and `--swaps-per-block` random pairs move per block.
 */
import { type Database, migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import type { ChainConfig } from '../src/chains/index.js';
import {
  createHistoricalPriceCache,
  pricesAt,
  pricingMigrations,
  startPricing,
} from '../src/pricing/index.js';
import { chainMigrations } from '../src/store/index.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const TOKENS = Number(arg('tokens', '1000'));
const BLOCKS = Number(arg('blocks', '3000'));
const SWAPS = Number(arg('swaps-per-block', '20'));
const KINDS =
  arg('db', 'both') === 'both'
    ? (['postgres', 'pglite'] as const)
    : ([arg('db', 'postgres')] as const);
const CHAIN = 990_001;
const USDC: `0x${string}` = `0x${'a1'.padStart(40, '0')}`;
const WETH: `0x${string}` = `0x${'b1'.padStart(40, '0')}`;
const token = (i: number) => `0x${(0xc0000 + i).toString(16).padStart(40, '0')}`;
const pair = (i: number) => `0x${(0xd0000 + i).toString(16).padStart(40, '0')}`;
const stablePair = (i: number) => `0x${(0xe0000 + i).toString(16).padStart(40, '0')}`;
const T0 = Date.parse('2026-01-01T00:00:00Z');

const chain: ChainConfig = {
  chainId: CHAIN,
  name: 'bench',
  tags: [],
  nativeSymbol: 'ETH',
  nativeName: 'Ether',
  nativeDecimals: 18,
  startBlock: 0n,
  finalityDepth: 64,
  stablecoins: [USDC],
  wrappedNative: WETH,
  uniswapV2Factories: [],
  uniswapV3Factories: [],
};

async function seed(db: Database): Promise<number> {
  await migrate(db, [...chainMigrations, ...pricingMigrations]);
  const tokens = Array.from({ length: TOKENS }, (_, i) => token(i));
  await db.query(
    `insert into tokens (chain_id, address, standard, decimals, status, first_block)
     select $1, a, 'erc20', case when a = $3 then 6 else 18 end, 'ok', 0 from unnest($2::text[]) a`,
    [CHAIN, [USDC, WETH, ...tokens], USDC],
  );
  // pools: WETH/USDC, token/WETH for all, token/USDC for every other token
  await db.query(
    `insert into pools (chain_id, address, dex, factory, token0, token1, created_block)
     values ($1, $2, 'uniswap_v2', '0x', $3, $4, 0)`,
    [CHAIN, pair(0xffff), USDC, WETH],
  );
  await db.query(
    `insert into pools (chain_id, address, dex, factory, token0, token1, created_block)
     select $1, p, 'uniswap_v2', '0x', $2, t, 0 from unnest($3::text[], $4::text[]) as u(p, t)`,
    [CHAIN, WETH, tokens.map((_, i) => pair(i)), tokens],
  );
  const half = tokens.filter((_, i) => i % 2 === 0);
  await db.query(
    `insert into pools (chain_id, address, dex, factory, token0, token1, created_block)
     select $1, p, 'uniswap_v2', '0x', $2, t, 0 from unnest($3::text[], $4::text[]) as u(p, t)`,
    [CHAIN, USDC, half.map((_, i) => stablePair(i * 2)), half],
  );
  // block 1: every pool gets a state; then random swaps. Deterministic pseudo-random walk.
  let seedValue = 42;
  const rnd = () => {
    seedValue = (seedValue * 1103515245 + 12345) & 0x7fffffff;
    return seedValue / 0x7fffffff;
  };
  const rows: [string, number, string, string][] = [];
  const E18 = 10n ** 18n;
  rows.push([pair(0xffff), 1, (3_000_000n * 10n ** 6n).toString(), (1000n * E18).toString()]);
  tokens.forEach((_, i) => {
    rows.push([pair(i), 1, (100n * E18).toString(), (BigInt(1000 + i) * E18).toString()]);
    if (i % 2 === 0)
      rows.push([
        stablePair(i),
        1,
        (10_000n * 10n ** 6n).toString(),
        (BigInt(2000 + i) * E18).toString(),
      ]);
  });
  for (let b = 2; b <= BLOCKS; b++) {
    const w = BigInt(Math.round(3_000_000 * (0.9 + rnd() * 0.2)));
    rows.push([pair(0xffff), b, (w * 10n ** 6n).toString(), (1000n * E18).toString()]);
    for (let k = 0; k < SWAPS; k++) {
      const i = Math.floor(rnd() * TOKENS);
      const r = BigInt(Math.round(1000 * (0.5 + rnd())));
      rows.push([pair(i), b, (100n * E18).toString(), (r * E18).toString()]);
    }
  }
  // one row per (pool, block)
  const unique = new Map(rows.map((r) => [`${r[0]}|${r[1]}`, r]));
  const list = [...unique.values()];
  for (let i = 0; i < list.length; i += 20_000) {
    const part = list.slice(i, i + 20_000);
    await db.query(
      `insert into pool_states (chain_id, pool, block_number, block_time, reserve0, reserve1)
       select $1, p, b, to_timestamp($2::float8 + b * 12), r0::numeric, r1::numeric
         from unnest($3::text[], $4::bigint[], $5::text[], $6::text[]) as u(p, b, r0, r1)`,
      [
        CHAIN,
        T0 / 1000,
        part.map((r) => r[0]),
        part.map((r) => r[1]),
        part.map((r) => r[2]),
        part.map((r) => r[3]),
      ],
    );
  }
  await db.query(
    `insert into checkpoints (chain_id, indexed_block, indexed_hash, indexed_time) values ($1, $2, '0x', to_timestamp($3))`,
    [CHAIN, BLOCKS, T0 / 1000 + BLOCKS * 12],
  );
  return list.length;
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
}

async function runFor(kind: 'postgres' | 'pglite'): Promise<void> {
  const t = await createTestDatabase(kind);
  try {
    const states = await seed(t.db);
    const log = pino({ level: 'silent' });
    const started = performance.now();
    const worker = await startPricing({ db: t.db, chains: [chain], log, intervalMs: 3_600_000 });
    await worker.runOnce();
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    const points = Number(
      (await t.db.query<{ n: string }>('select count(*) as n from price_history')).rows[0]?.n,
    );
    console.log(
      `${kind.padEnd(8)} pricing: ${states} pool states over ${BLOCKS} blocks in ${seconds.toFixed(2)} s = ${Math.round(states / seconds)} states/s (${points} price points)`,
    );

    // historical_prices=1,24,168 for a 1,000-token wallet at the chain's last block time
    const now = T0 + BLOCKS * 12 * 1000;
    const queries = Array.from({ length: Math.min(TOKENS, 1000) }, (_, i) => i).flatMap((i) =>
      [1, 24, 168].map((h) => ({
        chainId: CHAIN,
        token: token(i),
        time: new Date(now - h * 3_600_000),
      })),
    );
    const direct: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      await pricesAt(t.db, queries);
      direct.push(performance.now() - s);
    }
    const cache = createHistoricalPriceCache(t.db, { now: () => now });
    const cached: number[] = [];
    for (let i = 0; i < 200; i++) {
      const s = performance.now();
      await cache.pricesAt(queries);
      cached.push(performance.now() - s);
    }
    console.log(
      `${kind.padEnd(8)} historical_prices 1,24,168 x ${queries.length / 3} tokens: pricesAt p50 ${percentile(direct, 50).toFixed(1)} ms p99 ${percentile(direct, 99).toFixed(1)} ms; cached p50 ${percentile(cached, 50).toFixed(2)} ms p99 ${percentile(cached, 99).toFixed(2)} ms (first call included)`,
    );
  } finally {
    await t.drop();
  }
}

for (const kind of KINDS) await runFor(kind as 'postgres' | 'pglite');

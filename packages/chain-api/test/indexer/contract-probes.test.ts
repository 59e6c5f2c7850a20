import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { encodeDeployData, encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainMigrations } from '../../src/db/index.js';
import { type AnvilInstance, compileContracts, startAnvil } from '../../src/devnet/index.js';
import { prng } from '../../src/devnet/prng.js';
import { indexOnce } from '../../src/ingest/index.js';
import { checkGroundTruth } from './ground-truth.js';
import { deployWorkload, rpcCall, send, type Workload, waitReceipt } from './random-workload.js';
import { workloadChain } from './workload-chain.js';

/**
 * A Uniswap-v2 pair from a factory the registry doesn't know makes swap
 * rows, a Swap-shaped event of a non-pool doesn't; ERC721 Transfers without indexed arguments are
 * decoded for ERC721 contracts only.
 */
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'probe-contracts');
const abi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function createPair(address a, address b) returns (address)',
  'function getPair(address a, address b) view returns (address)',
  'function mint(address to) returns (uint256)',
  'function mint(address to, uint256 value)',
  'function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])',
  'function fakeSwap(address tokenIn, address tokenOut, uint256 amountIn, uint256 amountOut)',
]);
const kittyAbi = parseAbi(['function transfer(address to, uint256 id)']);
const E18 = 10n ** 18n;
const GAS = 3_000_000n;
let anvil: AnvilInstance;
let w: Workload;
let t: TestDatabase;
let db: Database;
const tx: Record<string, Hex> = {};
/** Seeded random phase: kitty ids minted, and which transactions are swaps or fakes. */
const kittyIds: bigint[] = [1n, 2n, 3n, 4n, 5n];
const randomSwaps: { hash: Hex; trader: Hex; sold: Hex; bought: Hex }[] = [];
const randomFakes: { hash: Hex; trader: Hex }[] = [];
let kittyPhaseEnd = 0n;
const at: Record<string, Hex> = {};

async function call(from: Hex, to: Hex, data: Hex): Promise<Hex> {
  const hash = await send(anvil.rpcUrl, from, to, data, 0n, GAS);
  const r = await waitReceipt(anvil.rpcUrl, hash);
  if (r.status !== '0x1') throw new Error(`transaction to ${to} reverted`);
  return hash;
}

async function deploy(name: string, args: unknown[] = []): Promise<Hex> {
  const c = (await compileContracts({ contractsDir: fixtures }))[name];
  if (!c) throw new Error(`no contract ${name}`);
  const data = encodeDeployData({ abi: c.abi, bytecode: c.bytecode, args });
  const hash = await send(anvil.rpcUrl, w.deployer, null, data, 0n, 6_000_000n);
  return ((await waitReceipt(anvil.rpcUrl, hash)).contractAddress as Hex).toLowerCase() as Hex;
}

const enc = (fn: string, args: unknown[]) =>
  encodeFunctionData({ abi, functionName: fn as 'transfer', args: args as [Hex, bigint] });

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 4, 61);
  const [lp, trader, x, y] = w.wallets as [Hex, Hex, Hex, Hex];
  const [tokenA, , tokenB] = w.erc20 as [Hex, Hex, Hex];

  // A v2 pair from a factory NOT in the chain's registry (uniswapV2Factories is empty).
  const factory = await deploy('UniswapV2Factory', [w.deployer]);
  await call(w.deployer, factory, enc('createPair', [tokenA, tokenB]));
  const pair = (
    await rpcCall<Hex>(anvil.rpcUrl, 'eth_call', [
      { to: factory, data: enc('getPair', [tokenA, tokenB]) },
      'latest',
    ])
  ).replace(/^0x0{24}/, '0x') as Hex;
  at.pair = pair;
  await call(lp, tokenA, enc('transfer', [pair, 1000n * E18]));
  await call(lp, tokenB, enc('transfer', [pair, 1000n * E18]));
  await call(lp, pair, enc('mint', [lp]));
  // Direct pair swap: tokens in first (one transaction), then swap() (another one).
  await call(trader, tokenA, enc('transfer', [pair, E18]));
  const aIs0 = tokenA < tokenB;
  const out = (9n * E18) / 10n;
  tx.direct = await call(
    trader,
    pair,
    enc('swap', [aIs0 ? 0n : out, aIs0 ? out : 0n, trader, '0x']),
  );
  // Through Router02 deployed for that factory.
  const router = await deploy('UniswapV2Router02', [factory, w.weth]);
  await call(trader, tokenB, enc('approve', [router, 10n * E18]));
  tx.router = await call(
    trader,
    router,
    enc('swapExactTokensForTokens', [2n * E18, 0n, [tokenB, tokenA], trader, 2n ** 40n]),
  );
  // A Swap-shaped event from a contract without token0()/token1().
  const fake = await deploy('FakeSwapper');
  at.fake = fake;
  await call(lp, tokenB, enc('transfer', [fake, 100n * E18]));
  await call(trader, tokenA, enc('approve', [fake, 10n * E18]));
  tx.fake = await call(trader, fake, enc('fakeSwap', [tokenA, tokenB, E18, E18 / 2n]));

  // Non-indexed Transfer: an ERC721 (ownerOf only, no ERC-165) and a plain token.
  const kitties = await deploy('LegacyKitties');
  at.kitties = kitties;
  for (const to of [lp, trader, x, y, x]) await call(w.deployer, kitties, enc('mint', [to]));
  await call(
    lp,
    kitties,
    encodeFunctionData({ abi: kittyAbi, functionName: 'transfer', args: [x, 1n] }),
  );
  await call(
    trader,
    kitties,
    encodeFunctionData({ abi: kittyAbi, functionName: 'transfer', args: [y, 2n] }),
  );
  await call(
    x,
    kitties,
    encodeFunctionData({ abi: kittyAbi, functionName: 'transfer', args: [lp, 5n] }),
  );
  kittyPhaseEnd = BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
  const coin = await deploy('LegacyCoin');
  at.coin = coin;
  await call(w.deployer, coin, enc('mint', [lp, 1000n]));
  await call(lp, coin, enc('transfer', [trader, 10n]));

  // Seeded random sequence over the same contracts (property-style: every check below holds for
  // every action, not only the hand-written ones).
  const r = prng(0x5eed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const owner = new Map<bigint, Hex>([
    [1n, x],
    [2n, y],
    [3n, x],
    [4n, y],
    [5n, lp],
  ]);
  for (const wlt of w.wallets) {
    await call(wlt, tokenA, enc('approve', [router, 10n ** 30n]));
    await call(wlt, tokenB, enc('approve', [router, 10n ** 30n]));
    await call(wlt, tokenA, enc('approve', [fake, 10n ** 30n]));
  }
  for (let i = 0; i < 30; i++) {
    const who = pick(w.wallets);
    const amount = BigInt(1 + Math.floor(r() * 50)) * 10n ** 16n;
    const op = Math.floor(r() * 5);
    if (op === 0) {
      const id = BigInt(kittyIds.length + 1);
      await call(w.deployer, kitties, enc('mint', [who]));
      kittyIds.push(id);
      owner.set(id, who);
    } else if (op === 1) {
      const id = pick(kittyIds);
      const from = owner.get(id) as Hex;
      const to = pick(w.wallets);
      await call(
        from,
        kitties,
        encodeFunctionData({ abi: kittyAbi, functionName: 'transfer', args: [to, id] }),
      );
      owner.set(id, to);
    } else if (op === 2) {
      const [sold, bought] = r() < 0.5 ? [tokenA, tokenB] : [tokenB, tokenA];
      const hash = await call(
        who,
        router,
        enc('swapExactTokensForTokens', [amount, 0n, [sold, bought], who, 2n ** 40n]),
      );
      randomSwaps.push({ hash, trader: who, sold, bought });
    } else if (op === 3) {
      // Direct: pay the pair, then swap() for a safe fraction of the quote.
      await call(who, tokenA, enc('transfer', [pair, amount]));
      const o = amount / 2n;
      const hash = await call(who, pair, enc('swap', [aIs0 ? 0n : o, aIs0 ? o : 0n, who, '0x']));
      randomSwaps.push({ hash, trader: who, sold: tokenA, bought: tokenB });
    } else {
      const hash = await call(who, fake, enc('fakeSwap', [tokenA, tokenB, amount, amount / 4n]));
      randomFakes.push({ hash, trader: who });
    }
  }

  t = await createTestDatabase('postgres');
  db = t.db;
  await migrate(db, chainMigrations);
  await indexOnce({ db, chains: [workloadChain(anvil.rpcUrl, w)], log: pino({ level: 'silent' }) });
}, 120_000);
afterAll(async () => {
  await t?.drop();
  await anvil?.stop();
});

async function rowsOf(hash: Hex, wallet: Hex) {
  const { rows } = await db.query<{ type: string; extra: Record<string, unknown> | null }>(
    'select type, extra from activity where tx_hash = $1 and wallet = $2 order by log_index, sub_index',
    [hash.toLowerCase(), wallet.toLowerCase()],
  );
  return rows;
}

describe('swaps from any v2/v3-compatible pool', () => {
  it('a direct pair swap (tokens sent in an earlier transaction) is a swap, from the pool events', async () => {
    const trader = w.wallets[1] as Hex;
    const swap = (await rowsOf(tx.direct as Hex, trader)).filter((r) => r.type === 'swap');
    expect(swap).toHaveLength(1);
    expect(swap[0]?.extra).toMatchObject({
      from_token_address: w.erc20[0]?.toLowerCase(),
      from_token_value: E18.toString(),
      to_token_address: w.erc20[2]?.toLowerCase(),
      to_token_value: ((9n * E18) / 10n).toString(),
      pools: [at.pair],
      dex: 'uniswap_v2',
    });
  });

  it('a router swap through the unregistered pair is a swap', async () => {
    const rows = await rowsOf(tx.router as Hex, w.wallets[1] as Hex);
    const swap = rows.find((r) => r.type === 'swap');
    expect(swap?.extra).toMatchObject({
      from_token_address: w.erc20[2]?.toLowerCase(),
      from_token_value: (2n * E18).toString(),
      to_token_address: w.erc20[0]?.toLowerCase(),
      pools: [at.pair],
    });
    expect(rows.some((r) => r.type === 'call')).toBe(false);
  });

  it('a Swap-shaped event of a contract without token0/token1 is not a swap', async () => {
    const rows = await rowsOf(tx.fake as Hex, w.wallets[1] as Hex);
    expect(rows.map((r) => r.type).sort()).toEqual(['call', 'receive', 'send']);
    const { rows: probes } = await db.query<{ address: string; result: string | null }>(
      `select address, result from contract_probes where probe = 'pool' order by address`,
    );
    const byAddress = new Map(probes.map((p) => [p.address, p.result]));
    expect(byAddress.get(at.fake as string)).toBeNull();
    const [t0, t1] = [w.erc20[0], w.erc20[2]].map((a) => a?.toLowerCase()).sort();
    expect(byAddress.get(at.pair as string)).toBe(`${t0},${t1}`);
    // Pricing keeps its own rules: the unregistered pair is not a priced pool.
    const { rows: pools } = await db.query('select 1 from pools where address = $1', [at.pair]);
    expect(pools).toHaveLength(0);
  });
});

describe('seeded random swaps, fakes and kitty moves', () => {
  it('every pool swap has one swap row for its trader, no fake does', async () => {
    expect(randomSwaps.length + randomFakes.length).toBeGreaterThan(5);
    for (const s of randomSwaps) {
      const swaps = (await rowsOf(s.hash, s.trader)).filter((row) => row.type === 'swap');
      expect(swaps).toHaveLength(1);
      expect(swaps[0]?.extra).toMatchObject({
        from_token_address: s.sold.toLowerCase(),
        to_token_address: s.bought.toLowerCase(),
        pools: [at.pair],
      });
    }
    for (const f of randomFakes) {
      const types = (await rowsOf(f.hash, f.trader)).map((row) => row.type);
      expect(types).not.toContain('swap');
    }
  });

  it('store equals the chain for every wallet, kitties included', async () => {
    const gt = await checkGroundTruth(db, anvil.rpcUrl, 31337, {
      erc721: [{ contract: at.kitties as string, ids: kittyIds }],
    });
    expect(gt.mismatches).toEqual([]);
  });
});

describe('ERC721 Transfer without indexed arguments', () => {
  it('holdings and activity of an ownerOf-only ERC721 equal the chain', async () => {
    const gt = await checkGroundTruth(db, anvil.rpcUrl, 31337, {
      erc721: [{ contract: at.kitties as string, ids: [1n, 2n, 3n, 4n, 5n] }],
    });
    expect(gt.mismatches).toEqual([]);
    const { rows } = await db.query<{ n: string }>(
      `select count(*)::text as n from activity
        where token_address = $1 and asset_type = 'erc721' and token_id <= 5 and block_number <= $2`,
      [at.kitties, kittyPhaseEnd.toString()],
    );
    expect(Number(rows[0]?.n)).toBe(5 + 2 * 3); // 5 mints, 3 transfers (send + receive)
    const { rows: token } = await db.query<{ standard: string }>(
      'select standard from tokens where address = $1',
      [at.kitties],
    );
    expect(token[0]?.standard).toBe('erc721');
  });

  it('the same event shape from a non-ERC721 stays undecoded', async () => {
    const { rows } = await db.query<{ n: string }>(
      'select count(*)::text as n from activity where token_address = $1',
      [at.coin],
    );
    expect(rows[0]?.n).toBe('0');
    const { rows: logs } = await db.query<{ n: string }>(
      'select count(*)::text as n from logs where address = $1',
      [at.coin],
    );
    expect(logs[0]?.n).toBe('2'); // kept as raw logs
  });
});

describe('indexing started mid-history', () => {
  it('labels swaps and decodes legacy ERC721 moves after the start block as a full index does', async () => {
    const middle = randomSwaps[Math.floor(randomSwaps.length / 2)];
    expect(middle).toBeDefined();
    const { rows: found } = await db.query<{ b: string }>(
      'select block_number::text as b from transactions where hash = $1',
      [middle?.hash.toLowerCase()],
    );
    const start = BigInt(found[0]?.b ?? '0');
    expect(start).toBeGreaterThan(kittyPhaseEnd);
    const late = await createTestDatabase('postgres');
    try {
      await migrate(late.db, chainMigrations);
      await indexOnce({
        db: late.db,
        chains: [workloadChain(anvil.rpcUrl, w, { startBlock: start })],
        log: pino({ level: 'silent' }),
      });
      // Every swap and ERC721 row from the start block on: same rows, same labels, same legs.
      const sql = `select wallet, block_number::text as block, tx_index, log_index, sub_index, type,
                          token_address, token_id::text as token_id, extra::text as extra
                     from activity where block_number >= $1 and (type = 'swap' or asset_type = 'erc721')
                    order by wallet, block_number, tx_index, log_index, sub_index`;
      const full = await db.query(sql, [start.toString()]);
      const partial = await late.db.query(sql, [start.toString()]);
      expect(full.rows.filter((r) => r.type === 'swap').length).toBeGreaterThan(0);
      expect(partial.rows).toEqual(full.rows);
    } finally {
      await late.drop();
    }
  });
});

import {
  type Address,
  createPublicClient,
  createWalletClient,
  http,
  type PublicClient,
  parseAbi,
} from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusSource } from '../../src/api/readiness.js';
import type { ChainConfig } from '../../src/chains/index.js';
import { type Devnet, startDevnet } from '../../src/devnet/index.js';
import { type PricingWorker, startPricing } from '../../src/pricing/start-pricing.js';
import type { PoolBootstrapStatus } from '../../src/wallets/pool-bootstrap.js';
import { indexOnce, startIndexers } from '../../src/wallets/start-indexers.js';
import { routerSwap as routerSwapAs } from '../support/devnet-swap.js';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy.js';
import {
  alwaysReady,
  get,
  log,
  type Served,
  serveStore as serveHarnessStore,
  waitFor,
} from './wallets-harness.js';

/**
 * USD prices in wallets mode: the devnet scenario creates its Uniswap v2/v3 pools and trades
 * before the wallets-mode indexer starts (at the head), a swap follows after. The pool bootstrap
 * must give the tracked wallets' balances the same price_usd / value_usd / pool_size /
 * low_liquidity as full mode over the same chain at the same block.
 */
const _erc20Abi = parseAbi(['function approve(address, uint256) returns (bool)']);
const helperAbi = parseAbi([
  'function swapExactIn(address pool, bool zeroForOne, uint256 amountIn, address recipient) returns (int256, int256)',
]);

/** The harness's store and API, with the API's pricing lookups. */
const serveStore = (chain: ChainConfig, statusSource: StatusSource, walletWaitMs = 30_000) =>
  serveHarnessStore(chain, statusSource, walletWaitMs, undefined, { pricing: true });

let devnet: Devnet;
let pub: PublicClient;
let full: Served;
let fullPricing: PricingWorker;
let proxy: FaultProxy;
const cleanups: (() => Promise<void>)[] = [];

const routerSwap = (from: Address, to: Address, amountIn: bigint) =>
  routerSwapAs(devnet, pub, from, to, amountIn);

/** Buys WBTC with 1 WETH on the v3 pool (the scenario approved the helper for the whale). */
async function v3Swap(): Promise<void> {
  const whale = devnet.manifest.wallets.whale;
  const pool = devnet.manifest.pools.wbtcWethV3;
  const weth = devnet.manifest.tokens.weth.address.toLowerCase();
  const wallet = createWalletClient({ chain: foundry, transport: http(devnet.rpcUrl) });
  const hash = await wallet.writeContract({
    account: whale,
    address: devnet.manifest.contracts.v3Helper,
    abi: helperAbi,
    functionName: 'swapExactIn',
    args: [pool.address, pool.token0.toLowerCase() === weth, 10n ** 18n, whale],
    gas: 2_000_000n,
  });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
}

/** Runs the pricing worker until its cursor is at the store's indexed block. */
async function priceToCheckpoint(s: Served, pricing: PricingWorker): Promise<bigint> {
  for (let i = 0; i < 100; i++) {
    await pricing.runOnce();
    const { rows } = await s.db.query<{ ok: boolean; at: string }>(
      `select c.indexed_block = p.last_block as ok, c.indexed_block::text as at from checkpoints c
         join pricing_cursors p on p.chain_id = c.chain_id where c.chain_id = 31337`,
    );
    if (rows[0]?.ok) return BigInt(rows[0].at);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('pricing did not catch up with the indexer');
}

/** Every balances page of `wallet` (small pages: cursors compared too). */
async function balances(s: Served, wallet: string): Promise<Record<string, unknown>[]> {
  const base = `/v1/evm/balances/${wallet}?chain_ids=31337&limit=4`;
  const pages: Record<string, unknown>[] = [];
  let next: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await get(s, next ? `${base}&offset=${encodeURIComponent(next)}` : base);
    pages.push({ status: page.status, ...page.body });
    next = page.body.next_offset as string | undefined;
    if (!next) break;
  }
  return pages;
}

const rowsOf = (pages: Record<string, unknown>[]) =>
  pages.flatMap((p) => (p.balances as Record<string, unknown>[] | undefined) ?? []);

beforeAll(async () => {
  devnet = await startDevnet({ trickle: false });
  pub = createPublicClient({ chain: foundry, transport: http(devnet.rpcUrl) }) as PublicClient;
  full = await serveStore(devnet.chain, alwaysReady(31337));
  fullPricing = await startPricing({
    db: full.db,
    chains: [devnet.chain],
    log,
    intervalMs: 3_600_000,
  });
}, 240_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await fullPricing?.stop();
  await full?.app.close();
  await full?.t.drop();
  await proxy?.close();
  await devnet?.stop();
});

/** A wallets-mode indexer (and its pricing worker) over the store `s`; `stop` ends both. */
async function walletsIndexer(s: Served, chain: ChainConfig) {
  const indexers = await startIndexers({
    db: s.db,
    chains: [chain],
    log,
    pollIntervalMs: 50,
    rpcOptions: { timeoutMs: 5_000 },
  });
  const pricing = await startPricing({ db: s.db, chains: [chain], log, intervalMs: 3_600_000 });
  const boot = () => indexers.status()[0]?.wallets?.pool_bootstrap as PoolBootstrapStatus;
  return {
    indexers,
    pricing,
    boot,
    stop: async () => {
      await pricing.stop();
      await indexers.stop();
    },
  };
}

async function commits(s: Served): Promise<{ block: string; pools: number; done: boolean }[]> {
  const { rows } = await s.db.query<{ block: string; pools: number; done: boolean }>(
    'select block::text as block, pools, done from pool_bootstrap_commits order by seq',
  );
  return rows;
}

describe('wallets mode: USD prices of pools created before the follow start', () => {
  it('bootstrap: retried scan and reads, restarts, a reorg below it; balances equal full mode (price, value, pool size, low liquidity)', async () => {
    const factory = devnet.manifest.contracts.uniswapV2Factory.toLowerCase();
    // The bootstrap's factory log scan, then its v3 state reads (slot0), fail (non-retryable
    // server error) until released.
    let failScan = true;
    let failReads = true;
    proxy = await startFaultProxy(devnet.rpcUrl, (_n, body) =>
      (failScan && body.includes('eth_getLogs') && body.toLowerCase().includes(factory)) ||
      (failReads && body.includes('eth_call') && body.includes('3850c7bd'))
        ? 'serverError'
        : 'pass',
    );
    const chain: ChainConfig = { ...devnet.chain, rpcUrl: proxy.url, mode: 'wallets' };
    let current: Awaited<ReturnType<typeof walletsIndexer>> | undefined;
    const s = await serveStore(chain, { status: () => current?.indexers.status() ?? [] }, 60_000);
    cleanups.push(async () => {
      await current?.stop();
      await s.app.close();
      await s.t.drop();
    });
    current = await walletsIndexer(s, chain);
    const w = () => current as Awaited<ReturnType<typeof walletsIndexer>>;
    await waitFor(() => w().indexers.status()[0]?.ready === true);
    // A failing node: the error shows in /health, nothing is marked done; a restart keeps trying.
    await waitFor(() => typeof w().boot()?.last_error === 'string', 30_000);
    expect(w().boot().state).not.toBe('done');
    await w().stop();
    current = await walletsIndexer(s, chain);
    await waitFor(() => typeof w().boot()?.last_error === 'string', 30_000);
    expect(await commits(s)).toEqual([]);

    // After the follow start, before the bootstrap: a swap moves WETH's price (USDC/WETH).
    const t = devnet.manifest.tokens;
    await routerSwap(t.usdc.address, t.weth.address, 50_000n * 10n ** 6n);
    const fork = await pub.request({ method: 'evm_snapshot' as never, params: [] as never });
    const forkBlock = await pub.getBlockNumber({ cacheTime: 0 });
    // Blocks the reorg below will replace: the bootstrap reads their pool states.
    await routerSwap(t.usdc.address, t.weth.address, 20_000n * 10n ** 6n);
    await v3Swap();
    const branchHead = await pub.getBlockNumber({ cacheTime: 0 });
    await waitFor(() => w().indexers.status()[0]?.indexed_block === Number(branchHead));
    failScan = false;
    await waitFor(() => /could not run/.test(w().boot()?.last_error ?? ''), 30_000);
    expect(w().boot().state).not.toBe('done');
    expect(await commits(s)).toEqual([]);
    failReads = false;
    await waitFor(() => w().boot()?.state === 'done', 60_000);
    expect(w().boot().pools_committed).toBeGreaterThanOrEqual(6);
    expect(w().boot().last_error).toBeNull();
    const first = await commits(s);
    expect(first.every((c) => BigInt(c.block) > forkBlock)).toBe(true);
    // After the bootstrap: the follower applies the bootstrapped pools' events (SLC/WETH v2) and
    // keeps the v3 pool's held-token changes.
    await routerSwap(t.slc.address, t.weth.address, 2_000n * 10n ** 18n);
    await v3Swap();
    await expectSameAsFullMode(s, w().pricing);
    await expectActivityPricesExplicit(s);

    // A reorg below the bootstrap's block: its rows are rolled back and it runs again.
    await pub.request({ method: 'evm_revert' as never, params: [fork] as never });
    await routerSwap(t.slc.address, t.weth.address, 500n * 10n ** 18n);
    await v3Swap();
    await pub.request({ method: 'anvil_mine' as never, params: ['0x8'] as never });
    await waitFor(async () => {
      const c = await commits(s);
      return c.some((x) => x.done) && !c.some((x) => first.some((f) => f.block === x.block));
    }, 60_000);
    // Run again after the rollback: every pool again, read on the new branch.
    const again = await commits(s);
    expect(again.reduce((n, c) => n + c.pools, 0)).toBe(first.reduce((n, c) => n + c.pools, 0));
    await waitFor(() => w().boot()?.state === 'done', 60_000);
    await expectSameAsFullMode(s, w().pricing);

    // Done is persisted: a restart does not scan again.
    const before = await commits(s);
    await w().stop();
    current = await walletsIndexer(s, chain);
    await waitFor(() => w().boot()?.state === 'done', 30_000);
    expect(await commits(s)).toEqual(before);
  }, 300_000);
});

/** The whale's balances (and the v3 pool's held tokens) equal full mode's at the same block. */
async function expectSameAsFullMode(s: Served, pricing: PricingWorker): Promise<void> {
  const t = devnet.manifest.tokens;
  const head = await pub.getBlockNumber({ cacheTime: 0 });
  const whale = devnet.manifest.wallets.whale.toLowerCase();
  await waitFor(async () => {
    const r = await get(s, `/v1/evm/balances/${whale}?chain_ids=31337`);
    return r.status === 200 && !r.body.warnings;
  }, 60_000);
  await waitFor(async () => {
    const { rows } = await s.db.query<{ b: string }>(
      'select indexed_block::text as b from checkpoints where chain_id = 31337',
    );
    return rows[0]?.b === head.toString();
  }, 30_000);
  expect(await priceToCheckpoint(s, pricing)).toBe(head);
  await indexOnce({ db: full.db, chains: [devnet.chain], log });
  expect(await priceToCheckpoint(full, fullPricing)).toBe(head);

  // What pricing reads for v3 depth: the pool's held tokens, equal to full mode's.
  const held = async (x: Served) =>
    (
      await x.db.query<{ token: string; amount: string }>(
        `select token, amount::text as amount from erc20_balances
          where chain_id = 31337 and wallet = $1 order by token`,
        [devnet.manifest.pools.wbtcWethV3.address.toLowerCase()],
      )
    ).rows;
  expect((await held(full)).length).toBe(2);
  expect(await held(s)).toEqual(await held(full));
  const want = await balances(full, whale);
  const got = await balances(s, whale);
  // The reference is not trivial: the whale holds tokens priced through v2 and v3 pools.
  const priced = rowsOf(want).filter((r) => typeof r.price_usd === 'number');
  const addr = (r: Record<string, unknown>) => String(r.address).toLowerCase();
  for (const tk of [t.usdc, t.weth, t.slc, t.wbtc])
    expect(priced.map(addr)).toContain(tk.address.toLowerCase());
  const pick = (r: Record<string, unknown>) => ({
    address: r.address,
    price_usd: r.price_usd,
    value_usd: r.value_usd,
    pool_size: r.pool_size,
    low_liquidity: r.low_liquidity,
  });
  expect(rowsOf(got).map(pick)).toEqual(rowsOf(want).map(pick));
  expect(got).toEqual(want);
}

/**
 * Activity: rows after the bootstrap are valued as in full mode; older priced rows have no price
 * of their time in wallets mode, use the current one, and the answer says so.
 */
async function expectActivityPricesExplicit(s: Served): Promise<void> {
  const whale = devnet.manifest.wallets.whale.toLowerCase();
  const path = `/v1/evm/activity/${whale}?chain_ids=31337&limit=200`;
  const [mine, ref] = [(await get(s, path)).body, (await get(full, path)).body];
  const { rows } = await s.db.query<{ t: number }>(
    'select extract(epoch from block_time)::int8 as t from pool_bootstrap_commits where done',
  );
  const since = Number(rows[0]?.t);
  type Item = { block_time: string; value_usd?: number; token_metadata?: { price_usd?: number } };
  const a = mine.activity as Item[];
  const f = ref.activity as Item[];
  expect(a.length).toBe(f.length);
  const strip = ({ value_usd: _v, token_metadata, ...rest }: Item) => ({
    ...rest,
    token_metadata: token_metadata && {
      ...token_metadata,
      price_usd: undefined,
      pool_size: undefined,
    },
  });
  expect(a.map(strip)).toEqual(f.map(strip));
  const newer = a.filter((x) => Date.parse(x.block_time) / 1000 >= since);
  const older = a.filter(
    (x) => Date.parse(x.block_time) / 1000 < since && x.value_usd !== undefined,
  );
  expect(newer.length).toBeGreaterThan(0);
  expect(older.length).toBeGreaterThan(0);
  expect(newer).toEqual(f.filter((x) => Date.parse(x.block_time) / 1000 >= since));
  // The scenario's prices moved over time: some old row differs from full mode's value.
  const fOld = f.filter(
    (x) => Date.parse(x.block_time) / 1000 < since && x.value_usd !== undefined,
  );
  expect(older.map((x) => x.value_usd)).not.toEqual(fOld.map((x) => x.value_usd));
  expect(ref.warnings).toBeUndefined();
  expect(mine.warnings).toEqual([
    expect.objectContaining({ code: 'PRICE_HISTORY_PARTIAL', chain_ids: [31337] }),
  ]);
}

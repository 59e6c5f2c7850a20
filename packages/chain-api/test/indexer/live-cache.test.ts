import pino from 'pino';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { type Indexers, startIndexers } from '../../src/ingest/index.js';
import { parseStoreChange, STORE_CHANGED_CHANNEL } from '../../src/store/changes/index.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { deployWorkload, rpcCall, send, type Workload, waitReceipt } from './random-workload.js';
import { workloadChain } from './workload-chain.js';

// The real indexer following anvil writes into the store a cached API reads: each block drops
// exactly the answers of the wallets it moved, and a reorg the answers of every wallet it undid.
const erc20 = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
]);

let anvil: AnvilInstance;
let w: Workload;
let api: TestApi;
let indexers: Indexers;
/** Every change notification once the indexer follows the head. */
const payloads: string[] = [];
let listener: { close(): Promise<void> } | undefined;

const head = async () => BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber'));
const balances = (wallet: string) => `/v1/evm/balances/${wallet}?chain_ids=31337`;

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out waiting');
}

async function indexedTip(): Promise<void> {
  const h = await head();
  const tip = await rpcCall<{ hash: string }>(anvil.rpcUrl, 'eth_getBlockByNumber', [
    `0x${h.toString(16)}`,
    false,
  ]);
  await waitFor(async () => {
    const { rows } = await api.t.db.query<{ indexed_hash: string }>(
      'select indexed_hash from checkpoints where chain_id = 31337',
    );
    return rows[0]?.indexed_hash === tip.hash;
  });
}

/**
 * The wallet's balance of each workload ERC20 on the chain, as decimal strings (native balances
 * were funded by anvil_setBalance, which no indexed event names).
 */
async function chainBalances(wallet: Hex): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const token of w.erc20) {
    const raw = await rpcCall<Hex>(anvil.rpcUrl, 'eth_call', [
      {
        to: token,
        data: encodeFunctionData({ abi: erc20, functionName: 'balanceOf', args: [wallet] }),
      },
      'latest',
    ]);
    out[token.toLowerCase()] = BigInt(raw).toString();
  }
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== '0'));
}

async function apiBalances(
  wallet: Hex,
): Promise<{ cache: string | null; amounts: Record<string, string> }> {
  const res = await api.get(balances(wallet));
  const body = (await res.json()) as { balances: { address: string; amount: string }[] };
  const amounts = Object.fromEntries(
    body.balances
      .filter((b) => w.erc20.map((t) => t.toLowerCase()).includes(b.address))
      .map((b) => [b.address, b.amount]),
  );
  return { cache: res.headers.get('x-cache'), amounts };
}

const sorted = (o: Record<string, string>) => JSON.stringify(Object.entries(o).sort());

async function matchesChain(wallet: Hex): Promise<boolean> {
  return sorted((await apiBalances(wallet)).amounts) === sorted(await chainBalances(wallet));
}

async function transfer(from: Hex, to: Hex, value: bigint): Promise<void> {
  const hash = await send(
    anvil.rpcUrl,
    from,
    w.erc20[0]!,
    encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to, value] }),
  );
  await waitReceipt(anvil.rpcUrl, hash);
}

beforeAll(async () => {
  anvil = await startAnvil();
  w = await deployWorkload(anvil.rpcUrl, 6, 31);
  const chain = workloadChain(anvil.rpcUrl, w, { finalityDepth: 64 });
  api = await startTestApi({
    chains: [chain],
    responseCache: { maxBytes: 8 << 20, maxAgeMs: 120_000 },
  });
  indexers = await startIndexers({
    db: api.t.db,
    chains: [chain],
    log: pino({ level: 'silent' }),
    pollIntervalMs: 50,
    batchSize: 2,
  });
  await waitFor(async () => indexers.status()[0]?.ready === true, 60_000);
  await indexedTip();
  listener = await api.t.db.listen(STORE_CHANGED_CHANNEL, (p) => payloads.push(p));
}, 120_000);

afterAll(async () => {
  await listener?.close();
  await indexers?.stop();
  await api?.close();
  await anvil?.stop();
});

describe('response cache with the indexer following anvil', () => {
  it('each block drops the answers of the wallets it moved; reorgs those of the wallets undone', async () => {
    const [w0, w1, w2, w3, w4] = w.wallets as [Hex, Hex, Hex, Hex, Hex];
    for (const wallet of [w0, w1, w2, w3, w4]) {
      await waitFor(async () => (await apiBalances(wallet)).cache === 'hit');
      expect((await apiBalances(wallet)).amounts).toEqual(await chainBalances(wallet));
    }

    await transfer(w0, w1, 1_234n);
    await indexedTip();
    for (const wallet of [w0, w1]) {
      await waitFor(async () => (await apiBalances(wallet)).cache === 'miss', 5_000);
      expect((await apiBalances(wallet)).amounts).toEqual(await chainBalances(wallet));
    }
    for (const wallet of [w2, w3, w4]) expect((await apiBalances(wallet)).cache).toBe('hit');

    // A block sends to w2; the chain then replaces it with one sending to w3 instead.
    await transfer(w0, w2, 777n);
    await indexedTip();
    await waitFor(async () => matchesChain(w2), 5_000);
    await waitFor(async () => (await apiBalances(w2)).cache === 'hit', 5_000);
    const replacement = {
      from: w0,
      to: w.erc20[0],
      data: encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [w3, 555n] }),
      gas: '0x30000',
    };
    await rpcCall(anvil.rpcUrl, 'anvil_reorg', [1, [[replacement, 0]]]);
    await indexedTip();
    // w2 is in no block of the new branch: only the rollback can have dropped its answer.
    await waitFor(async () => matchesChain(w2), 5_000);
    for (const wallet of [w0, w2, w3]) {
      expect((await apiBalances(wallet)).amounts).toEqual(await chainBalances(wallet));
    }
    expect((await apiBalances(w4)).cache).toBe('hit');
    expect((await apiBalances(w4)).amounts).toEqual(await chainBalances(w4));

    // Blocks, the rollback and the re-index all named what they touched: nothing coarse.
    const changes = payloads.map(parseStoreChange);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.filter((c) => c.all || c.chains.some((chain) => chain.all))).toEqual([]);
  }, 120_000);
});

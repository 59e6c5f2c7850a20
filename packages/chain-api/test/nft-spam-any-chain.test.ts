import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../src/chains/index.js';
import { type AnvilInstance, compileContracts, startAnvil } from '../src/devnet/index.js';
import { type Indexers, startIndexers } from '../src/ingest/index.js';
import { type NftPassStats, type NftWorker, startNftWorker } from '../src/nft/index.js';
import { startTestApi, type TestApi } from './support/api-harness.js';

/**
 * Spam scoring on a chain this repo did not build: anvil under an unknown chain id, an ERC721
 * written for this test (not a devnet contract) airdropping a lure ("Claim your reward at
 * bit.ly/...", a bit.ly image) to 8 of 10 wallets, and a plain collection held by 3. The real
 * indexer follows the chain and the NFT worker runs its own loop, as `serve` wires them; the
 * worker's periodic "held tokens without metadata" scan is pushed out to an hour, so only the
 * discovery from indexed transfers can find the collections.
 */
const log = pino({ level: 'silent' });
const chainId = 424_242;
const mnemonic = 'test test test test test test test test test test test junk';
const account = (i: number) => mnemonicToAccount(mnemonic, { addressIndex: i });
const wallets = Array.from({ length: 10 }, (_, i) => account(i + 1).address.toLowerCase() as Hex);

let anvil: AnvilInstance;
let api: TestApi;
let indexers: Indexers | undefined;
let worker: NftWorker | undefined;
let abi: Abi;
let lure: Hex;
let plain: Hex;
const passes: NftPassStats[] = [];

const client = (): PublicClient => createPublicClient({ transport: http(anvil.rpcUrl) });

/** Sends a transaction and waits for its receipt; resolves with its block number. */
async function send(from: number, address: Hex, functionName: string, args: unknown[]) {
  const wallet = createWalletClient({ account: account(from), transport: http(anvil.rpcUrl) });
  const hash = await wallet.writeContract({ address, abi, functionName, args, chain: null });
  const receipt = await client().waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt.blockNumber;
}

/** Waits until the indexer has committed `block` (its holdings are in the store). */
async function indexedThrough(block: bigint) {
  await afterPasses(`block ${block} indexed`, async () => {
    const { rows } = await api.t.db.query<{ indexed_block: string }>(
      'select indexed_block::text from checkpoints where chain_id = $1',
      [chainId],
    );
    return rows[0] !== undefined && BigInt(rows[0].indexed_block) >= block;
  });
}

async function deployCollection(name: string, symbol: string, doc: object): Promise<Hex> {
  const { AirdropCollection } = await compileContracts({
    contractsDir: join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'spam-chain'),
  });
  abi = AirdropCollection!.abi;
  const wallet = createWalletClient({ account: account(0), transport: http(anvil.rpcUrl) });
  const hash = await wallet.deployContract({
    abi,
    bytecode: AirdropCollection!.bytecode,
    args: [name, symbol, JSON.stringify(doc)],
    chain: null,
  });
  return (await client().waitForTransactionReceipt({ hash })).contractAddress!.toLowerCase() as Hex;
}

interface Entry {
  contract_address: string;
  token_id: string;
  is_spam: boolean;
  spam_score?: number;
  explanations?: Array<{
    feature: string;
    value: number | boolean | string;
    feature_score: number;
    feature_weight: number;
  }>;
}

async function collectibles(wallet: string, query = ''): Promise<Entry[]> {
  const res = await api.get(`/v1/evm/collectibles/${wallet}?chain_ids=${chainId}${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { entries: Entry[] }).entries;
}

const withScores = '&filter_spam=false&show_spam_scores=true';

/**
 * Waits for a condition checked between worker passes, bounded by passes (the indexer follows the
 * chain meanwhile); the 2-minute guard only turns a stuck worker into a clear failure.
 */
async function afterPasses(what: string, check: () => Promise<boolean>, maxPasses = 200) {
  const start = passes.length;
  const guard = Date.now() + 120_000;
  while (!(await check())) {
    if (passes.length - start > maxPasses || Date.now() > guard) {
      throw new Error(`${what}: not after ${passes.length - start} worker passes`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId });
  lure = await deployCollection('Claim your reward at bit.ly/4rwd', 'REWARD', {
    name: 'Reward Pass',
    description: 'Claim your $2,500 reward at bit.ly/4rwd-claim before it expires',
    image: 'https://bit.ly/4rwd-img',
  });
  plain = await deployCollection('Alpine Sketches', 'ALPS', {
    name: 'Alpine Sketch',
    description: 'Pencil drawings of mountain ridges',
    image: 'ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG/alps.png',
  });
  await send(0, lure, 'airdrop', [wallets.slice(0, 8)]);
  await send(0, plain, 'airdrop', [wallets.slice(0, 3)]);

  const chain: ChainConfig = {
    chainId,
    name: 'elsewhere',
    tags: [],
    nativeSymbol: 'ETH',
    nativeName: 'Ether',
    nativeDecimals: 18,
    rpcUrl: anvil.rpcUrl,
    startBlock: 0n,
    finalityDepth: 2,
    stablecoins: [],
    uniswapV2Factories: [],
    uniswapV3Factories: [],
  };
  api = await startTestApi({ chains: [chain] });
  // Worker first, as on a fresh start: its first pass sees an empty store.
  worker = await startNftWorker({
    db: api.t.db,
    chains: [chain],
    log,
    pollIntervalMs: 50,
    enqueueIntervalMs: 3_600_000,
    spamEvidenceDebounceMs: 0,
    onPass: (stats) => passes.push(stats),
  });
  await afterPasses('first pass', async () => passes.length > 0);
  expect(passes[0]).toMatchObject({ discovered: 0, scored: 0 });
  indexers = await startIndexers({ db: api.t.db, chains: [chain], log });
}, 300_000);

afterAll(async () => {
  await worker?.stop();
  await indexers?.stop();
  await api?.close();
  await anvil?.stop();
});

describe('NFT spam on a chain the repo did not deploy', () => {
  it('scores the lure collection as spam and the plain one as not, through the collectibles API', async () => {
    const victim = wallets[0]!;
    await afterPasses('lure scored with metadata', async () => {
      const entry = (await collectibles(victim, withScores)).find(
        (e) => e.contract_address === lure,
      );
      return entry?.is_spam === true;
    });
    const all = await collectibles(victim, withScores);
    const spam = all.filter((e) => e.contract_address === lure);
    expect(spam).toHaveLength(1);
    expect(spam[0]!.spam_score).toBeGreaterThanOrEqual(50);
    expect(spam[0]!.explanations?.map((e) => e.feature)).toEqual(
      expect.arrayContaining(['suspicious_words', 'url_shortener']),
    );
    const good = all.filter((e) => e.contract_address === plain);
    expect(good).toHaveLength(1);
    expect(good[0]).toMatchObject({ is_spam: false });
    expect(good[0]!.spam_score).toBeLessThan(50);
    // Spam is hidden by default; the plain collection stays.
    expect((await collectibles(victim)).map((e) => e.contract_address)).toEqual([plain]);
    // Every airdrop recipient sees the verdict, not only the first.
    for (const wallet of wallets.slice(0, 8)) {
      const entries = await collectibles(wallet, withScores);
      expect(entries.find((e) => e.contract_address === lure)).toMatchObject({ is_spam: true });
    }
    // Found by the discovery, not by the hourly safety net (which ran once, on an empty store).
    expect(passes.slice(1).every((p) => p.queued === 0)).toBe(true);
    expect(passes.reduce((n, p) => n + p.discovered, 0)).toBe(2);
  });

  it('explains all four observed features to every holder of the never-traded airdrops, zeros included', async () => {
    const observed = ['trade_volume', 'unique_buyers', 'unique_sellers', 'externally_flagged'];
    const holders = [...wallets.slice(0, 8).map((w) => [w, lure]), [wallets[0], plain]];
    for (const [wallet, contract] of holders as [Hex, Hex][]) {
      const entry = (await collectibles(wallet, withScores)).find(
        (e) => e.contract_address === contract,
      );
      const explained = entry?.explanations?.filter((e) => observed.includes(e.feature)) ?? [];
      expect(
        explained.map((e) => [e.feature, e.value]),
        `${wallet} ${contract}`,
      ).toEqual([
        ['trade_volume', 0],
        ['unique_buyers', 0],
        ['unique_sellers', 0],
        ['externally_flagged', false],
      ]);
      for (const e of explained) {
        expect(e.feature_score).toEqual(expect.any(Number));
        expect(e.feature_weight).toEqual(expect.any(Number));
      }
    }
  });

  it('re-scores a collection when new transfers are indexed (new holders)', async () => {
    const { rows: before } = await api.t.db.query<{ scored_at: Date }>(
      'select scored_at from nft_collections where chain_id = $1 and contract = $2',
      [chainId, lure],
    );
    const seen = passes.length;
    // A re-score and a touching pass can both come before the airdrop's block is indexed (a pass
    // of the earlier transfers): the new holders' rows must be in the store first.
    await indexedThrough(await send(0, lure, 'airdrop', [wallets.slice(8)]));
    // Fetching the new tokens' metadata can re-score the lure before discovery reads the new
    // transfers; both must happen.
    await afterPasses('lure re-scored and touched by discovery', async () => {
      const { rows } = await api.t.db.query<{ scored_at: Date }>(
        'select scored_at from nft_collections where chain_id = $1 and contract = $2',
        [chainId, lure],
      );
      return (
        rows[0]!.scored_at > before[0]!.scored_at && passes.slice(seen).some((p) => p.touched > 0)
      );
    });
    const entries = await collectibles(wallets[9]!, withScores);
    expect(entries.find((e) => e.contract_address === lure)).toMatchObject({ is_spam: true });
  });
});

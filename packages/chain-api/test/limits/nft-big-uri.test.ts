import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { type Abi, createPublicClient, createWalletClient, type Hex, http } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainConfig } from '../../src/chains/index.js';
import { type AnvilInstance, compileContracts, startAnvil } from '../../src/devnet/index.js';
import { type Indexers, startIndexers } from '../../src/ingest/index.js';
import { type NftPassStats, type NftWorker, startNftWorker } from '../../src/nft/index.js';
import { startTestApi, type TestApi } from '../support/api-harness.js';
import { watchRss } from './rss-watch.js';

/**
 * A collection whose `uri(id)` answers are the documents themselves, megabytes each (an ERC1155
 * compiled from test/fixtures/big-uri, on anvil): 320 ids of ~1 MB at the default worker
 * settings, 4 ids of 3 MB (over NFT_MAX_BYTES) and one of 5.5 MB (its eth_call answer, hex,
 * is over the NFT client's 10 MiB limit). The real indexer and NFT worker run as `serve` wires
 * them. Every read ends stored and bounded, or refused and recorded with a reason and a
 * next attempt a day out; none is put back every 30 s; memory stays bounded meanwhile; the
 * collectibles answer echoes no document.
 */
const log = pino({ level: 'silent' });
const chainId = 31337;
const mnemonic = 'test test test test test test test test test test test junk';
const account = (i: number) => mnemonicToAccount(mnemonic, { addressIndex: i });
const holder = account(1).address.toLowerCase() as Hex;
const other = account(2).address.toLowerCase() as Hex;

const MB = 1_000_000;
const normal = Array.from({ length: 320 }, (_, i) => BigInt(i + 1));
const tooBig = [1001n, 1002n, 1003n, 1004n];
const overRpcLimit = 2001n;

let anvil: AnvilInstance;
let api: TestApi;
let indexers: Indexers | undefined;
let worker: NftWorker | undefined;
let contract: Hex;
let small: Hex;
const passes: NftPassStats[] = [];

interface Row {
  token_id: string;
  status: string;
  uri_chars: number;
  stored_bytes: number;
  limited: string | null;
  last_error: string | null;
  attempts: number;
  wait_s: number;
}

async function rows(address: Hex): Promise<Row[]> {
  const { rows } = await api.t.db.query<Row>(
    `select token_id::text, status, coalesce(length(uri), 0) as uri_chars,
            coalesce(octet_length(name), 0) + coalesce(octet_length(description), 0)
              + coalesce(octet_length(image_url), 0) + coalesce(octet_length(attributes::text), 0)
              as stored_bytes,
            limited, last_error, attempts,
            extract(epoch from next_attempt - now())::float8 as wait_s
       from nft_metadata where chain_id = $1 and contract = $2 order by token_id`,
    [chainId, address],
  );
  return rows;
}

beforeAll(async () => {
  // Room for uri() calls building megabytes in memory (its gas grows with the square).
  anvil = await startAnvil({ chainId, args: ['--gas-limit', '300000000'] });
  const { BigUriItems } = await compileContracts({
    contractsDir: join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'big-uri'),
  });
  const abi = BigUriItems!.abi as Abi;
  const client = createPublicClient({ transport: http(anvil.rpcUrl) });
  const wallet = createWalletClient({ account: account(0), transport: http(anvil.rpcUrl) });
  const deploy = async () => {
    const hash = await wallet.deployContract({ abi, bytecode: BigUriItems!.bytecode, chain: null });
    return (await client.waitForTransactionReceipt({ hash })).contractAddress!.toLowerCase() as Hex;
  };
  contract = await deploy();
  small = await deploy();
  const mint = async (address: Hex, to: Hex, ids: bigint[], size: number) => {
    const hash = await wallet.writeContract({
      address,
      abi,
      functionName: 'mintBatch',
      args: [to, ids, ids.map(() => BigInt(size))],
      chain: null,
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
  };
  for (let i = 0; i < normal.length; i += 80)
    await mint(contract, holder, normal.slice(i, i + 80), MB);
  await mint(contract, holder, tooBig, 3 * MB);
  await mint(contract, holder, [overRpcLimit], 5.5 * MB);
  await mint(small, other, [1n, 2n], 100);

  const chain: ChainConfig = {
    chainId,
    name: 'devnet',
    tags: ['default'],
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
  indexers = await startIndexers({ db: api.t.db, chains: [chain], log });
}, 300_000);

afterAll(async () => {
  await worker?.stop();
  await indexers?.stop();
  await api?.close();
  await anvil?.stop();
});

describe('NFT documents of megabytes', () => {
  it('stores bounded metadata or refuses with a reason; no read is put back forever; memory stays bounded', async () => {
    const total = normal.length + tooBig.length + 1;
    const guard = Date.now() + 120_000;
    while ((await rows(contract)).length < total) {
      if (Date.now() > guard) throw new Error('the indexer did not queue every token');
      await new Promise((r) => setTimeout(r, 100));
    }
    const rss = watchRss();
    const t0 = performance.now();
    worker = await startNftWorker({
      db: api.t.db,
      chains: api.chains,
      log,
      pollIntervalMs: 50,
      onPass: (stats) => passes.push(stats),
    });
    let done: Row[] = [];
    while (performance.now() - t0 < 240_000) {
      done = await rows(contract);
      if (done.every((r) => r.status !== 'pending')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - t0) / 1000;
    rss.stop();
    expect(done.filter((r) => r.status === 'pending').map((r) => r.token_id)).toEqual([]);
    expect(seconds).toBeLessThan(240);
    expect(rss.growthMiB()).toBeLessThan(600);
    // No token was put back as "node unavailable" (today: every 30 s, forever).
    expect(passes.reduce((n, p) => n + p.deferred, 0)).toBe(0);

    const byId = new Map(done.map((r) => [r.token_id, r]));
    for (const id of normal) {
      const row = byId.get(id.toString())!;
      expect(row.status, row.last_error ?? '').toBe('ok');
      // The 1 MB data: URI is stored as its digest; the fields stay within 256 KiB.
      expect(row.uri_chars).toBeLessThan(200);
      expect(row.stored_bytes).toBeLessThanOrEqual(256 * 1024);
      expect(row.limited).toMatch(/^uri: data: URI of \d+ characters stored as its digest$/);
    }
    for (const id of tooBig) {
      const row = byId.get(id.toString())!;
      expect(row.status).toBe('failed');
      expect(row.last_error).toMatch(/^TOO_LARGE: URI of \d+ characters is longer than 2 MB/);
      expect(row.attempts).toBe(1);
      expect(row.wait_s).toBeGreaterThan(23 * 3600);
    }
    const huge = byId.get(overRpcLimit.toString())!;
    expect(huge.status).toBe('failed');
    expect(huge.last_error).toMatch(/^TOO_LARGE: uri\(2001\) answer is too large to read/);
    expect(huge.wait_s).toBeGreaterThan(23 * 3600);
    expect(huge.uri_chars).toBe(0);
  }, 400_000);

  it('answers collectibles of the holder bounded, echoing no document, and another wallet meanwhile', async () => {
    const rss = watchRss();
    const t0 = performance.now();
    const res = await api.get(
      `/v1/evm/collectibles/${holder}?chain_ids=${chainId}&limit=2500&filter_spam=false`,
    );
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(30_000);
    rss.stop();
    expect(rss.growthMiB()).toBeLessThan(300);
    expect(Buffer.byteLength(text)).toBeLessThan(17 * 1024 * 1024);
    const body = JSON.parse(text) as {
      entries: { token_id: string; name?: string; metadata?: { uri?: string } }[];
      next_offset?: string;
    };
    expect(body.entries).toHaveLength(normal.length + tooBig.length + 1);
    expect(body.next_offset).toBeUndefined();
    const first = body.entries.find((e) => e.token_id === '1');
    expect(first?.name).toBe('Big 1');
    expect(text).not.toContain('data:application/json');
    const another = await api.get(`/v1/evm/collectibles/${other}?chain_ids=${chainId}`);
    expect(another.status).toBe(200);
    const entries = ((await another.json()) as { entries: { metadata?: { uri?: string } }[] })
      .entries;
    expect(entries).toHaveLength(2);
  }, 120_000);
});

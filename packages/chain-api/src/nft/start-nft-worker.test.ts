import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { createPublicClient, createWalletClient, type Hex, http as httpTransport } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getKnownChain } from '../chains/index.js';
import {
  type AnvilInstance,
  type CompiledContracts,
  compileContracts,
  startAnvil,
} from '../devnet/index.js';
import { chainMigrations } from '../store/index.js';
import { nftMigrations } from '../store/nft/nft-migrations.js';
import { setSpamOverride } from './spam/spam-store.js';
import { type NftWorker, startNftWorker } from './start-nft-worker.js';

const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const holder = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const cid = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';

let anvil: AnvilInstance;
let t: TestDatabase;
let server: http.Server;
let origin: string;
let worker: NftWorker;
let erc721: Hex;
let erc1155: Hex;
let broken: Hex;
let version = 1;
let contracts: CompiledContracts;

const account = privateKeyToAccount(key);
const publicClient = () => createPublicClient({ transport: httpTransport(anvil.rpcUrl) });
const wallet = () => createWalletClient({ account, transport: httpTransport(anvil.rpcUrl) });

async function deploy(name: string, args: unknown[]): Promise<Hex> {
  const c = contracts[name]!;
  const hash = await wallet().deployContract({
    abi: c.abi,
    bytecode: c.bytecode,
    args,
    chain: null,
  });
  const receipt = await publicClient().waitForTransactionReceipt({ hash });
  return receipt.contractAddress!.toLowerCase() as Hex;
}

async function send(
  address: Hex,
  name: string,
  functionName: string,
  args: unknown[],
): Promise<bigint> {
  const hash = await wallet().writeContract({
    address,
    abi: contracts[name]!.abi,
    functionName,
    args,
    chain: null,
  });
  return (await publicClient().waitForTransactionReceipt({ hash })).blockNumber;
}

async function hold(contract: Hex, tokenId: bigint, standard: 'erc721' | 'erc1155', balance = 1n) {
  await t.db.query(
    `insert into nft_holdings (wallet, chain_id, contract, token_id, standard, balance, last_acquired, last_acquired_block, updated_block)
     values ($1, 31337, $2, $3, $4, $5, now() - interval '30 days', 1, 1)`,
    [holder, contract, tokenId.toString(), standard, balance.toString()],
  );
}

interface Row {
  status: string;
  uri: string | null;
  name: string | null;
  description: string | null;
  image_url: string | null;
  attributes: Array<{ key: string; value: string }> | null;
  attempts: number;
  last_error: string | null;
  wait_s: number;
}

async function row(contract: Hex, tokenId: bigint): Promise<Row> {
  const { rows } = await t.db.query<Row>(
    `select status, uri, name, description, image_url, attributes, attempts, last_error,
            extract(epoch from next_attempt - now())::float8 as wait_s
       from nft_metadata where chain_id = 31337 and contract = $1 and token_id = $2`,
    [contract, tokenId.toString()],
  );
  return rows[0]!;
}

beforeAll(async () => {
  contracts = await compileContracts(); // the devnet's contracts (cached on disk by source hash)
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const json = (body: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    if (path === '/meta/1') {
      return json({
        name: `Token One v${version}`,
        description: 'The first',
        image: `ipfs://${cid}/1.png`,
        attributes: [
          { trait_type: 'Level', value: version },
          { trait_type: 'Shiny', value: true },
        ],
      });
    }
    if (path === '/meta/1-moved.json') return json({ name: 'Token One moved' });
    if (path === '/meta/2.json') {
      res.setHeader('content-type', 'application/json');
      return res.end('{"name": "half');
    }
    if (path === `/ipfs/${cid}/5.json`) return json({ name: 'From IPFS', image: 'ar://abc' });
    if (path === '/meta/7.png') {
      res.setHeader('content-type', 'image/png');
      return res.end(Buffer.alloc(64));
    }
    const multi = /^\/multi\/([0-9a-f]{64})\.json$/.exec(path);
    if (multi)
      return json({ name: `Multi ${BigInt(`0x${multi[1]}`)}`, properties: { kind: 'sword' } });
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  anvil = await startAnvil();
  t = await createTestDatabase('postgres');
  await migrate(t.db, [...chainMigrations, ...nftMigrations]);

  erc721 = await deploy('DevCollection', ['Test Apes', 'TAPE', `${origin}/meta/`, account.address]);
  erc1155 = await deploy('DevItems', [`${origin}/multi/{id}.json`, account.address]);
  // No tokenURI at all, name()/symbol() revert: the worst case.
  broken = await deploy('RevertingMetadataToken', [account.address, 1000n]);
  const data = `data:application/json;base64,${Buffer.from('{"name":"On chain","attributes":[{"trait_type":"Size","value":3}]}').toString('base64')}`;
  const uris: Array<[bigint, string]> = [
    [1n, `${origin}/meta/1`],
    [2n, `${origin}/meta/2.json`],
    [3n, data],
    [4n, 'http://10.0.0.1/4.json'],
    [5n, `ipfs://${cid}/5.json`],
    [6n, `data:application/json,${encodeURIComponent('{"name":"Percent #6"}')}`],
    [7n, `${origin}/meta/7.png`],
  ];
  await send(erc721, 'DevCollection', 'mintBatch', [holder, BigInt(uris.length)]);
  for (const [id, uri] of uris) {
    // Token 1 keeps the base URI (<origin>/meta/1); the others get their own.
    if (id !== 1n) await send(erc721, 'DevCollection', 'setTokenURI', [id, uri]);
    await hold(erc721, id, 'erc721');
  }
  await send(erc1155, 'DevItems', 'mint', [holder, 10n, 5n]);
  await hold(erc1155, 10n, 'erc1155', 5n);
  await hold(broken, 1n, 'erc721');

  const chain = { ...getKnownChain(31337)!, rpcUrl: anvil.rpcUrl };
  worker = await startNftWorker({
    db: t.db,
    chains: [chain],
    log: pino({ level: 'silent' }),
    allowHosts: [new URL(origin).host],
    ipfsGateway: origin,
    pollIntervalMs: 3_600_000, // the test drives passes with runOnce()
    fetchTimeoutMs: 2_000,
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await t?.drop();
  await anvil?.stop();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('startNftWorker', () => {
  it('queues held tokens and fills metadata for every URI form', async () => {
    await worker.runOnce(); // the background loop may have run the first pass already
    const queued = await t.db.query('select 1 from nft_metadata');
    expect(queued.rowCount).toBe(9);

    const one = await row(erc721, 1n);
    expect(one).toMatchObject({
      status: 'ok',
      uri: `${origin}/meta/1`,
      name: 'Token One v1',
      description: 'The first',
      image_url: `${origin}/ipfs/${cid}/1.png`,
      attributes: [
        { key: 'Level', value: '1' },
        { key: 'Shiny', value: 'true' },
      ],
      attempts: 0,
      last_error: null,
    });
    expect(one.wait_s).toBeGreaterThan(23 * 3600); // next URI re-check in a day

    expect(await row(erc721, 3n)).toMatchObject({
      status: 'ok',
      name: 'On chain',
      attributes: [{ key: 'Size', value: '3' }],
    });
    expect(await row(erc721, 5n)).toMatchObject({
      status: 'ok',
      name: 'From IPFS',
      image_url: 'https://arweave.net/abc',
    });
    expect(await row(erc721, 6n)).toMatchObject({ status: 'ok', name: 'Percent #6' });
    expect(await row(erc721, 7n)).toMatchObject({
      status: 'ok',
      name: null,
      image_url: `${origin}/meta/7.png`,
    });
    expect(await row(erc1155, 10n)).toMatchObject({
      status: 'ok',
      uri: `${origin}/multi/${'0'.repeat(62)}0a.json`,
      name: 'Multi 10',
      attributes: [{ key: 'kind', value: 'sword' }],
    });
  });

  it('records failures with the reason and an exponential retry schedule', async () => {
    const brokenJson = await row(erc721, 2n);
    expect(brokenJson).toMatchObject({
      status: 'failed',
      attempts: 1,
      uri: `${origin}/meta/2.json`,
    });
    expect(brokenJson.last_error).toMatch(/^INVALID_JSON/);
    expect(brokenJson.wait_s).toBeGreaterThan(50);
    expect(brokenJson.wait_s).toBeLessThan(70);

    const blocked = await row(erc721, 4n);
    expect(blocked).toMatchObject({ status: 'failed', attempts: 1 });
    expect(blocked.last_error).toMatch(/^BLOCKED_ADDRESS: refused private address/);

    const reverted = await row(broken, 1n);
    expect(reverted).toMatchObject({ status: 'failed', uri: null });
    expect(reverted.last_error).toMatch(/^URI_CALL_FAILED/);

    // Not due yet: a second pass leaves it alone.
    await worker.runOnce();
    expect((await row(erc721, 2n)).attempts).toBe(1);
    // Due: the retry fails again and waits twice as long.
    await t.db.query(
      `update nft_metadata set next_attempt = now() where contract = $1 and token_id = 2`,
      [erc721],
    );
    await worker.runOnce();
    const again = await row(erc721, 2n);
    expect(again.attempts).toBe(2);
    expect(again.wait_s).toBeGreaterThan(100);
    expect(again.wait_s).toBeLessThan(140);
  });

  it('reads collection names and symbols (null when the contract has none) and scores spam', async () => {
    const { rows } = await t.db.query<{
      contract: string;
      name: string | null;
      symbol: string | null;
      spam_score: number | null;
      is_spam: boolean;
      spam_explanations: Array<{ feature: string }> | null;
    }>(
      'select contract, name, symbol, spam_score, is_spam, spam_explanations from nft_collections order by contract',
    );
    const byContract = new Map(rows.map((r) => [r.contract, r]));
    expect(byContract.get(erc721)).toMatchObject({
      name: 'Test Apes',
      symbol: 'TAPE',
      is_spam: false,
    });
    expect(byContract.get(broken)).toMatchObject({ name: null, symbol: null });
    const explanations = byContract.get(erc721)?.spam_explanations?.map((e) => e.feature);
    expect(explanations).toContain('trade_volume'); // 30 days old: the volume signal applies
    expect(explanations).toContain('uri_non_ipfs');
    expect(typeof byContract.get(erc721)?.spam_score).toBe('number');
  });

  it('a manual override flags a collection on the next pass', async () => {
    await setSpamOverride(t.db, 31337, erc1155, 'spam', 'test');
    await worker.runOnce();
    const { rows } = await t.db.query<{ is_spam: boolean; spam_score: number }>(
      'select is_spam, spam_score from nft_collections where contract = $1',
      [erc1155],
    );
    expect(rows[0]).toEqual({ is_spam: true, spam_score: 100 });
    await setSpamOverride(t.db, 31337, erc1155, null);
    await worker.runOnce();
    const after = await t.db.query<{ is_spam: boolean }>(
      'select is_spam from nft_collections where contract = $1',
      [erc1155],
    );
    expect(after.rows[0]?.is_spam).toBe(false);
  });

  it('refetches on an ERC-4906 MetadataUpdate flagged by the indexer', async () => {
    version = 2; // the server now answers a new document for the same URI
    await worker.runOnce();
    expect((await row(erc721, 1n)).name).toBe('Token One v1'); // nothing flagged: kept
    const block = await send(erc721, 'DevCollection', 'setBaseURI', [`${origin}/meta/`]);
    // What the indexer does for the BatchMetadataUpdate(1, 7) this emits (here only 1..3):
    await t.db.query(
      `update nft_metadata set status = 'pending', next_attempt = now(), refresh_block = $2
        where chain_id = 31337 and contract = $1 and token_id between 1 and 3`,
      [erc721, block.toString()],
    );
    const stats = await worker.runOnce();
    expect(stats.fetched).toBeGreaterThanOrEqual(2);
    expect(await row(erc721, 1n)).toMatchObject({
      status: 'ok',
      name: 'Token One v2',
      attributes: [
        { key: 'Level', value: '2' },
        { key: 'Shiny', value: 'true' },
      ],
    });
  });

  it('a URI re-check refetches a changed URI, leaves an unchanged immutable one alone', async () => {
    await t.db.query(
      `update nft_metadata set next_attempt = now() where contract = $1 and token_id in (1, 3, 5, 7)`,
      [erc721],
    );
    await send(erc721, 'DevCollection', 'setTokenURI', [1n, `${origin}/meta/1-moved.json`]);
    const stats = await worker.runOnce();
    expect(stats.unchanged).toBe(2); // tokens 3 (data:) and 5 (ipfs://): immutable, not refetched
    expect(stats.fetched).toBe(2); // token 1 (new URI) and token 7 (same http URI, refetched)
    expect(await row(erc721, 1n)).toMatchObject({
      status: 'ok',
      uri: `${origin}/meta/1-moved.json`,
      name: 'Token One moved',
    });
  });

  it('a refresh requested while a fetch is in flight is not lost', async () => {
    const before = await row(erc721, 6n);
    expect(before.status).toBe('ok');
    // Simulate: claimed with refresh_block null, then the indexer re-queues (refresh_block 999).
    await t.db.query(
      `update nft_metadata set status = 'pending', next_attempt = now(), refresh_block = 999 where contract = $1 and token_id = 6`,
      [erc721],
    );
    const { saveSuccess } = await import('../store/nft/metadata-store.js');
    const landed = await saveSuccess(
      t.db,
      {
        chainId: 31337,
        contract: erc721,
        tokenId: 6n,
        standard: 'erc721',
        uri: null,
        status: 'ok',
        attempts: 0,
        refreshBlock: null,
        held: true,
        deferrals: 0,
      },
      'stale-uri',
      { name: 'stale', description: null, imageUrl: null, attributes: [], externalUrl: null },
      1000,
    );
    expect(landed).toBe(false);
    expect((await row(erc721, 6n)).status).toBe('pending');
  });

  it('an unreachable node defers tokens without counting a failure', async () => {
    await t.db.query(
      `insert into nft_holdings (wallet, chain_id, contract, token_id, standard, balance, last_acquired, last_acquired_block, updated_block)
       values ($1, 31338, $2, 1, 'erc721', 1, now(), 1, 1)`,
      [holder, erc721],
    );
    const offline = await startNftWorker({
      db: t.db,
      chains: [{ ...getKnownChain(31337)!, chainId: 31338, rpcUrl: 'http://127.0.0.1:1' }],
      log: pino({ level: 'silent' }),
      pollIntervalMs: 3_600_000,
    });
    try {
      await offline.runOnce(); // (the worker's own first pass may have done the work already)
      const { rows } = await t.db.query<{
        status: string;
        attempts: number;
        last_error: string | null;
        wait_s: number;
      }>(
        `select status, attempts, last_error, extract(epoch from next_attempt - now())::float8 as wait_s
           from nft_metadata where chain_id = 31338`,
      );
      expect(rows[0]).toMatchObject({ status: 'pending', attempts: 0, last_error: null });
      expect(rows[0]!.wait_s).toBeGreaterThan(20);
      expect(rows[0]!.wait_s).toBeLessThan(40);
    } finally {
      await offline.stop();
    }
  });
});

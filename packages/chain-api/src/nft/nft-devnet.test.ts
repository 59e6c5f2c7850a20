import pino from 'pino';
import { createWalletClient, http, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../test/support/api-harness.js';
import { type Devnet, devnetAccount, startDevnet } from '../devnet/index.js';
import { indexOnce } from '../ingest/index.js';
import { type NftPassStats, type NftWorker, startNftWorker } from './start-nft-worker.js';

/**
 * End to end on the devnet: anvil with the demo scenario and its metadata server, the real
 * indexer into PostgreSQL, the NFT worker, and the collectibles endpoint.
 */
const log = pino({ level: 'silent' });
let devnet: Devnet;
let api: TestApi;
let worker: NftWorker;

interface MetaRow {
  contract: string;
  token_id: string;
  status: string;
  uri: string | null;
  name: string | null;
  attributes: Array<{ key: string; value: string; format?: string }> | null;
  attempts: number;
  last_error: string | null;
  wait_s: number;
}

/** Metadata rows of a collection's currently held tokens. */
async function metadata(contract: string): Promise<MetaRow[]> {
  const { rows } = await api.t.db.query<MetaRow>(
    `select contract, token_id::text as token_id, status, uri, name, attributes, attempts, last_error,
            extract(epoch from next_attempt - now())::float8 as wait_s
       from nft_metadata m
      where chain_id = 31337 and contract = $1
        and exists (select 1 from nft_holdings h
                     where h.chain_id = m.chain_id and h.contract = m.contract and h.token_id = m.token_id)
      order by token_id`,
    [contract],
  );
  return rows;
}

/** Runs worker passes until nothing is pending (bounded). */
async function drain(): Promise<void> {
  for (let i = 0; i < 30; i++) {
    await worker.runOnce();
    const { rows } = await api.t.db.query<{ n: string }>(
      `select count(*)::text as n from nft_metadata where status = 'pending'`,
    );
    if (rows[0]?.n === '0') return;
  }
  throw new Error('metadata queue did not drain');
}

async function collectibles(
  wallet: string,
  query = '',
): Promise<{
  entries: Array<Record<string, unknown> & { contract_address: string; token_id: string }>;
}> {
  const res = await api.get(`/v1/evm/collectibles/${wallet}?chain_ids=31337${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

/** Passes of a worker started before anything is indexed, as `serve --devnet` starts it. */
const early = { passes: [] as NftPassStats[], atIndexed: -1, atFirstScore: -1, atSpam: -1 };

/** Whether the devnet's lure collection has a score (and, with `spam`, is flagged). */
async function spamScored(spam = false): Promise<boolean> {
  const { rows } = await api.t.db.query<{ n: string }>(
    `select count(*)::text as n from nft_collections
      where contract = $1 and spam_score is not null and (is_spam or not $2)`,
    [devnet.manifest.nfts.spam.address, spam],
  );
  return rows[0]?.n === '1';
}

/** Waits, between the early worker's passes, for a condition (bounded by passes). */
async function untilPass(what: string, check: () => Promise<boolean>): Promise<void> {
  const start = early.passes.length;
  const guard = Date.now() + 120_000; // turns a stuck worker into a clear failure
  while (!(await check())) {
    if (early.passes.length - start > 300 || Date.now() > guard) {
      throw new Error(`${what}: not after ${early.passes.length - start} passes`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  devnet = await startDevnet();
  api = await startTestApi({ chains: [devnet.chain] });
  // The worker starts on an empty store (its first pass finds nothing); the periodic scan for
  // held tokens without metadata is pushed out of reach, so only discovery can find collections.
  const first = await startNftWorker({
    db: api.t.db,
    chains: [devnet.chain],
    log,
    allowHosts: [new URL(devnet.metadataUrl).host],
    pollIntervalMs: 100,
    enqueueIntervalMs: 3_600_000,
    onPass: (stats) => early.passes.push(stats),
  });
  await untilPass('first pass', async () => early.passes.length > 0);
  await indexOnce({ db: api.t.db, chains: [devnet.chain], log });
  early.atIndexed = early.passes.length;
  await untilPass('first score', () => spamScored());
  early.atFirstScore = early.passes.length;
  await untilPass('flagged as spam', () => spamScored(true));
  early.atSpam = early.passes.length;
  // Let it finish the queue so no token stays leased by a stopped worker.
  await untilPass('queue drained', async () => {
    const { rows } = await api.t.db.query<{ n: string }>(
      `select count(*)::text as n from nft_metadata where status = 'pending'`,
    );
    return rows[0]?.n === '0';
  });
  // The pass that drained the queue may still be running: wait until it has reported its stats.
  const reported = early.passes.length;
  await untilPass('pass reported', async () => early.passes.length > reported);
  await first.stop();
  worker = await startNftWorker({
    db: api.t.db,
    chains: [devnet.chain],
    log,
    allowHosts: [new URL(devnet.metadataUrl).host],
    pollIntervalMs: 3_600_000,
    fetchTimeoutMs: 5_000,
  });
  await drain();
}, 600_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await devnet?.stop();
});

describe('NFT metadata, sales and spam on the devnet', () => {
  it('scores the spam collection in the first pass or two after its transfers are indexed', () => {
    expect(early.passes[0]).toMatchObject({ queued: 0, discovered: 0, scored: 0 });
    // At most the pass already running when indexing finished, then the next one: with the
    // default 1 s poll interval the first score lands about a second after the indexer has the
    // airdrop (it used to wait for the 5-minute scan of held tokens).
    expect(early.atFirstScore - early.atIndexed).toBeLessThanOrEqual(2);
    // ...scored from a fetched sample document (the name alone scores 49), so it is spam at once.
    expect(early.atSpam).toBe(early.atFirstScore);
    expect(early.passes.every((p) => p.queued === 0)).toBe(true);
    // Failed passes report what they committed too (a pass can fail under load and be retried).
    const errors = early.passes.flatMap((p) => (p.error ? [p.error] : []));
    expect(
      early.passes.reduce((n, p) => n + p.discovered, 0),
      `failed passes: ${errors.join('; ')}`,
    ).toBeGreaterThanOrEqual(5);
  });

  it('fills metadata for the http collection from the local server', async () => {
    const punks = devnet.manifest.nfts.punks.address;
    const rows = await metadata(punks);
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      expect(row.status, `punk ${row.token_id}: ${row.last_error}`).toBe('ok');
      expect(row.uri).toBe(
        row.token_id === '8'
          ? `${devnet.metadataUrl}punks/8-v2`
          : `${devnet.metadataUrl}punks/${row.token_id}`,
      );
      expect(row.name).toBe(
        `Sluice Punk #${row.token_id}${row.token_id === '8' ? ' (revealed)' : ''}`,
      );
      expect(row.attributes).toContainEqual({
        key: 'Level',
        value: row.token_id,
        format: 'number',
      });
    }
  });

  it('decodes the on-chain data: collection and the ERC1155 {id} URIs', async () => {
    const shapes = await metadata(devnet.manifest.nfts.shapes.address);
    expect(shapes.length).toBeGreaterThan(0);
    for (const row of shapes) {
      expect(row.status, row.last_error ?? '').toBe('ok');
      expect(row.uri).toMatch(/^data:application\/json/);
      expect(row.name).toMatch(/^Shape /);
    }
    const items = await metadata(devnet.manifest.nfts.items.address);
    expect(items.map((r) => [r.token_id, r.status, r.name])).toEqual([
      ['1', 'ok', 'Sword'],
      ['2', 'ok', 'Shield'],
      ['3', 'ok', 'Potion'],
    ]);
    expect(items[0]?.uri).toBe(`${devnet.metadataUrl}items/${'0'.repeat(63)}1.json`);
  });

  it('skips burned tokens without calling the contract', async () => {
    const burn = devnet.manifest.events.nftBurn;
    expect(burn).toBeDefined();
    const { rows } = await api.t.db.query<{ status: string; last_error: string; wait_s: number }>(
      `select status, last_error, extract(epoch from next_attempt - now())::float8 as wait_s
         from nft_metadata m
        where chain_id = 31337 and contract = $1
          and not exists (select 1 from nft_holdings h
                           where h.chain_id = m.chain_id and h.contract = m.contract and h.token_id = m.token_id)`,
      [devnet.manifest.nfts.punks.address],
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'failed', last_error: 'NOT_HELD: no current holder' });
      expect(row.wait_s).toBeGreaterThan(20 * 3600);
    }
  });

  it('records the broken collection as failed with the reason and a retry time', async () => {
    const rows = await metadata(devnet.manifest.nfts.broken.address);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) {
      const id = Number(row.token_id);
      expect(row.status).toBe('failed');
      expect(row.attempts).toBe(1);
      expect(row.wait_s).toBeGreaterThan(30);
      const expected =
        id % 3 === 1
          ? /^INVALID_JSON/
          : id % 3 === 2
            ? /^HTTP_STATUS: HTTP 404/
            : /^HTTP_STATUS: HTTP 500/;
      expect(row.last_error).toMatch(expected);
    }
  });

  it('attributes every paid sale of the scenario at its per-token price', async () => {
    const { rows } = await api.t.db.query<{
      contract: string;
      token_id: string;
      seller: string;
      buyer: string;
      payment_token: string;
      price: string;
      tx_hash: string;
    }>(
      'select contract, token_id::text as token_id, seller, buyer, payment_token, price::text as price, tx_hash from nft_sales',
    );
    expect(devnet.manifest.sales.length).toBeGreaterThanOrEqual(4);
    for (const sale of devnet.manifest.sales) {
      for (const tokenId of sale.tokenIds) {
        const found = rows.find(
          (r) => r.tx_hash === sale.txHash.toLowerCase() && r.token_id === tokenId,
        );
        expect(found, `${sale.txHash} #${tokenId}`).toMatchObject({
          contract: sale.collection,
          seller: sale.seller,
          buyer: sale.buyer,
          payment_token: sale.paymentToken,
          price: sale.pricePerToken,
        });
      }
    }
    // Free transfers are not sales.
    const saleTxs = new Set(devnet.manifest.sales.map((s) => s.txHash.toLowerCase()));
    expect(rows.every((r) => saleTxs.has(r.tx_hash))).toBe(true);
  });

  it('the collectibles endpoint shows last_sale_price and metadata for a bought token', async () => {
    const sale = devnet.manifest.sales.find(
      (s) => s.standard === 'erc721' && s.paymentToken === 'native',
    );
    expect(sale).toBeDefined();
    const body = await collectibles(sale!.buyer);
    const entry = body.entries.find(
      (e) => e.contract_address === sale!.collection && e.token_id === sale!.tokenIds[0],
    );
    expect(entry).toMatchObject({
      last_sale_price: sale!.pricePerToken,
      name: `Sluice Punk #${sale!.tokenIds[0]}`,
      symbol: 'SPUNK',
      is_spam: false,
    });
    expect((entry!.metadata as { attributes: unknown[] }).attributes.length).toBeGreaterThan(0);
  });

  it('flags the spam collection: hidden by default, shown with scores and explanations', async () => {
    const spam = devnet.manifest.nfts.spam.address;
    const { rows } = await api.t.db.query<{
      contract: string;
      is_spam: boolean;
      spam_score: number;
    }>('select contract, is_spam, spam_score from nft_collections');
    for (const row of rows)
      expect(row.is_spam, `${row.contract} scored ${row.spam_score}`).toBe(row.contract === spam);

    const holder = devnet.manifest.airdropRecipients[0]!;
    expect((await collectibles(holder)).entries.filter((e) => e.contract_address === spam)).toEqual(
      [],
    );
    const all = await collectibles(holder, '&filter_spam=false&show_spam_scores=true');
    const entry = all.entries.find((e) => e.contract_address === spam);
    expect(entry).toMatchObject({ is_spam: true });
    expect(entry?.spam_score).toBeGreaterThanOrEqual(50);
    const features = (entry!.explanations as Array<{ feature: string }>).map((e) => e.feature);
    expect(features).toEqual(
      expect.arrayContaining(['unique_buyers', 'suspicious_words', 'url_shortener']),
    );
  });

  it('refetches after ERC-4906 MetadataUpdate and BatchMetadataUpdate events are indexed', async () => {
    const punks = devnet.manifest.nfts.punks.address;
    const before = await metadata(punks);
    const target = before.find((r) => r.token_id !== '8')!;
    const wallet = createWalletClient({
      account: devnetAccount('deployer'),
      transport: http(devnet.rpcUrl),
    });
    const abi = parseAbi([
      'function setTokenURI(uint256 tokenId, string uri)',
      'function setBaseURI(string baseURI)',
    ]);
    await wallet.writeContract({
      address: punks,
      abi,
      functionName: 'setTokenURI',
      args: [BigInt(target.token_id), `${devnet.metadataUrl}punks/${target.token_id}-v2`],
      chain: null,
    });
    await indexOnce({ db: api.t.db, chains: [devnet.chain], log });
    expect((await metadata(punks)).find((r) => r.token_id === target.token_id)?.status).toBe(
      'pending',
    );
    await drain();
    const after = (await metadata(punks)).find((r) => r.token_id === target.token_id);
    expect(after).toMatchObject({
      status: 'ok',
      name: `Sluice Punk #${target.token_id} (revealed)`,
    });
    expect(after?.attributes).toContainEqual({ key: 'Revealed', value: 'true' });

    await wallet.writeContract({
      address: punks,
      abi,
      functionName: 'setBaseURI',
      args: [`${devnet.metadataUrl}punks/`],
      chain: null,
    });
    await indexOnce({ db: api.t.db, chains: [devnet.chain], log });
    const queued = await metadata(punks);
    expect(queued.every((r) => r.status === 'pending')).toBe(true);
    const stats = await worker.runOnce();
    expect(stats.fetched).toBe(queued.length);
    await drain();
    expect((await metadata(punks)).every((r) => r.status === 'ok')).toBe(true);
  });
});

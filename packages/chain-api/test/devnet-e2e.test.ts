import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { createPublicClient, http, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../src/api/server.js';
import { knownChains } from '../src/chains/index.js';
import { pricingLookups } from '../src/cli/pricing-lookups.js';
import { type Devnet, startDevnet } from '../src/devnet/index.js';
import { type Indexers, startIndexers } from '../src/ingest/index.js';
import { createKeyStore } from '../src/keys/key-store.js';
import { type NftWorker, startNftWorker } from '../src/nft/index.js';
import { type PricingWorker, startPricing } from '../src/pricing/index.js';
import { storeMigrations } from '../src/store/migrations.js';
import { assertMatchesReference, referenceAvailable } from './support/reference-schemas.js';

/**
 * End to end on the devnet scenario: anvil + scenario + trickle -> indexer -> pricing -> NFT
 * worker -> API, all on a real PostgreSQL. Every answer for every scenario wallet validates
 * against the peer's schemas; the scenario's notable cases show up as specified.
 */

const log = pino({ level: 'silent' });
let devnet: Devnet;
let t: TestDatabase;
let indexers: Indexers;
let pricing: PricingWorker;
let nft: NftWorker;
let app: FastifyInstance;
let base: string;
let key: string;

async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  devnet = await startDevnet({ trickle: { intervalMs: 400 } });
  t = await createTestDatabase('postgres');
  await migrate(t.db, storeMigrations);
  const chains = [devnet.chain];
  indexers = await startIndexers({ db: t.db, chains, log });
  await waitFor('the index to be ready', async () =>
    indexers.status()[0]?.ready ? true : undefined,
  );
  pricing = await startPricing({ db: t.db, chains, log });
  await pricing.runOnce();
  nft = await startNftWorker({
    db: t.db,
    chains,
    log,
    allowHosts: [new URL(devnet.metadataUrl).host],
  });
  ({ key } = await createKeyStore(t.db).create({ name: 'e2e' }));
  app = await createApiServer({
    db: t.db,
    chains,
    wellKnownChains: knownChains,
    statusSource: { status: () => indexers.status() },
    cursorSecret: 'e2e-cursor-secret-0123456789abcdef',
    rateLimit: { max: 1_000_000, windowMs: 60_000 },
    pricing: pricingLookups(t.db, chains),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 240_000);

afterAll(async () => {
  await app?.close();
  await nft?.stop();
  await pricing?.stop();
  await indexers?.stop();
  await devnet?.stop();
  await t?.drop();
});

const get = async <T = Record<string, unknown>>(path: string): Promise<T> => {
  const res = await fetch(`${base}${path}`, { headers: { 'x-sim-api-key': key } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

type Balance = {
  address: string;
  amount: string;
  symbol?: string;
  price_usd?: number;
  pool_size?: number;
  low_liquidity?: boolean;
};

describe('devnet end to end', () => {
  it('every wallet: activity, balances, token balance, collectibles and DeFi positions validate against the reference', async () => {
    if (!referenceAvailable()) return;
    for (const wallet of Object.values(devnet.manifest.wallets)) {
      assertMatchesReference('ActivityResponse', await get(`/v1/evm/activity/${wallet}?limit=100`));
      assertMatchesReference(
        'BalancesResponse',
        await get(`/v1/evm/balances/${wallet}?historical_prices=1,24,168&metadata=logo,url,pools`),
      );
      assertMatchesReference(
        'SingleBalanceResponse',
        await get(`/v1/evm/balances/${wallet}/token/native?chain_ids=31337&historical_prices=24`),
      );
      assertMatchesReference(
        'CollectiblesResponse',
        await get(`/v1/evm/collectibles/${wallet}?filter_spam=false&show_spam_scores=true`),
      );
      assertMatchesReference(
        'DefiPositionsResponse',
        await get(`/v1/evm/defi/positions/${wallet}`),
      );
    }
    assertMatchesReference('ChainsResponse', await get('/v1/evm/supported-chains'));
  });

  it('balances carry on-chain prices: USDC at 1, WETH near 3,000, the 1-wei pool token unpriced', async () => {
    const { tokens, wallets } = devnet.manifest;
    const holders = Object.values(wallets);
    const all: Balance[] = [];
    for (const wallet of holders) {
      all.push(...(await get<{ balances: Balance[] }>(`/v1/evm/balances/${wallet}`)).balances);
    }
    const usdc = all.find((b) => b.address === tokens.usdc.address);
    expect(usdc).toMatchObject({ symbol: 'USDC', price_usd: 1 });
    const weth = all.find((b) => b.address === tokens.weth.address);
    expect(weth?.price_usd).toBeGreaterThan(2000);
    expect(weth?.price_usd).toBeLessThan(4000);
    const scam = all.find((b) => b.address === tokens.scam.address);
    if (scam) expect(scam).not.toHaveProperty('price_usd');
  });

  it('metadata=url,logo: devnet tokens and ETH get logos served by the devnet (as the peer example client asks)', async () => {
    const { tokens, wallets } = devnet.manifest;
    const body = await get<{ balances: (Balance & { token_metadata?: { logo?: string } })[] }>(
      `/v1/evm/balances/${wallets.alice}?metadata=url,logo&exclude_spam_tokens`,
    );
    const logos = new Map(body.balances.map((b) => [b.address, b.token_metadata?.logo]));
    expect(logos.get('native')).toBe(`${devnet.metadataUrl}logos/eth.svg`);
    for (const token of [tokens.usdc, tokens.weth, tokens.wbtc]) {
      if (!logos.has(token.address)) continue; // alice may not hold every token
      const logo = logos.get(token.address)!;
      expect(logo).toBe(`${devnet.metadataUrl}logos/${token.symbol.toLowerCase()}.svg`);
      const res = await fetch(logo);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(await res.text()).toContain(`>${token.symbol.toUpperCase()}</text>`);
    }
    expect([tokens.usdc, tokens.weth, tokens.wbtc].some((t) => logos.has(t.address))).toBe(true);
    const activity = await get<{ activity: { token_metadata?: { logo?: string } }[] }>(
      `/v1/evm/activity/${wallets.alice}?limit=25`,
    );
    expect(
      activity.activity.some((a) => a.token_metadata?.logo?.startsWith(devnet.metadataUrl)),
    ).toBe(true);
  });

  it('exclude_spam_tokens drops the airdropped spam token', async () => {
    const { tokens, airdropRecipients } = devnet.manifest;
    const recipient = airdropRecipients[0]!;
    const all = await get<{ balances: Balance[] }>(`/v1/evm/balances/${recipient}`);
    expect(all.balances.map((b) => b.address)).toContain(tokens.spam.address);
    const clean = await get<{ balances: Balance[] }>(
      `/v1/evm/balances/${recipient}?exclude_spam_tokens=true`,
    );
    expect(clean.balances.map((b) => b.address)).not.toContain(tokens.spam.address);
  });

  it('pages through every wallet feed while the trickle appends: each row once, newest first', async () => {
    for (const wallet of Object.values(devnet.manifest.wallets)) {
      const seen: string[] = [];
      const blocks: number[] = [];
      let offset: string | undefined;
      do {
        const body = await get<{ activity: Record<string, unknown>[]; next_offset?: string }>(
          `/v1/evm/activity/${wallet}?limit=3${offset ? `&offset=${offset}` : ''}`,
        );
        seen.push(...body.activity.map((a) => JSON.stringify(a)));
        blocks.push(...body.activity.map((a) => a.block_number as number));
        offset = body.next_offset;
      } while (offset);
      expect(new Set(seen).size, wallet).toBe(seen.length);
      expect(blocks, wallet).toEqual([...blocks].sort((a, b) => b - a));
    }
  });

  it('the spam NFT collection is hidden by default and shown, scored, with filter_spam=false', async () => {
    const { nfts, airdropRecipients } = devnet.manifest;
    const recipient = airdropRecipients[0]!;
    const entry = await waitFor('the spam collection to be scored', async () => {
      const body = await get<{ entries: Record<string, unknown>[] }>(
        `/v1/evm/collectibles/${recipient}?filter_spam=false&show_spam_scores=true`,
      );
      return body.entries.find(
        (e) => e.contract_address === nfts.spam.address && e.is_spam === true,
      );
    });
    expect(entry.spam_score).toBeGreaterThan(50);
    expect(Array.isArray(entry.explanations)).toBe(true);
    const hidden = await get<{ entries: Record<string, unknown>[] }>(
      `/v1/evm/collectibles/${recipient}`,
    );
    expect(hidden.entries.some((e) => e.contract_address === nfts.spam.address)).toBe(false);
  });

  it('health reports the devnet chain as indexed and ready', async () => {
    const res = await fetch(`${base}/health`);
    expect(await res.json()).toMatchObject({
      status: 'ok',
      chains: [
        expect.objectContaining({
          chain_id: 31337,
          ready: true,
          // Balance reconciliation is on and reports its cost.
          reconcile: expect.objectContaining({
            enabled: true,
            non_conserving_tokens: expect.any(Number),
            reads_per_batch: expect.any(Number),
          }),
        }),
      ],
    });
  });
});

describe('devnet end to end: peer-surface endpoints against the chain', () => {
  const erc20Abi = parseAbi(['function balanceOf(address) view returns (uint256)']);
  const client = () => createPublicClient({ transport: http(devnet.rpcUrl) });
  const indexedBlock = () => BigInt(indexers.status()[0]?.indexed_block ?? 0);

  it('token holders equal balanceOf at the indexed block, for every token and scenario wallet', async () => {
    const rpc = client();
    for (const token of Object.values(devnet.manifest.tokens)) {
      // The trickle keeps the indexer moving: retry until a page was read within one indexed block.
      let holders: { wallet_address: string; balance: string }[] = [];
      let block = 0n;
      for (let attempt = 0; attempt < 40; attempt++) {
        block = indexedBlock();
        const body = await get<{ holders: typeof holders; next_offset?: string }>(
          `/v1/evm/token-holders/31337/${token.address}`,
        );
        if (referenceAvailable()) assertMatchesReference('TokenHoldersResponse', body);
        expect(body.next_offset).toBeUndefined();
        holders = body.holders;
        if (indexedBlock() === block) break;
      }
      const listed = new Map(holders.map((h) => [h.wallet_address, BigInt(h.balance)]));
      const balances = holders.map((h) => BigInt(h.balance));
      expect(balances, token.symbol).toEqual(
        [...balances].sort((a, b) => (b > a ? 1 : b < a ? -1 : 0)),
      );
      for (const [wallet, balance] of listed) {
        const onChain = await rpc.readContract({
          address: token.address as `0x${string}`,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [wallet as `0x${string}`],
          blockNumber: block,
        });
        expect(balance, `${token.symbol} ${wallet}`).toBe(onChain);
      }
      for (const wallet of Object.values(devnet.manifest.wallets)) {
        const onChain = await rpc.readContract({
          address: token.address as `0x${string}`,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [wallet as `0x${string}`],
          blockNumber: block,
        });
        expect(listed.get(wallet.toLowerCase()) ?? 0n, `${token.symbol} ${wallet}`).toBe(onChain);
      }
    }
  });

  it('transactions of every wallet match the chain and validate against the reference', async () => {
    const rpc = client();
    for (const wallet of Object.values(devnet.manifest.wallets)) {
      const body = await get<{ transactions: Record<string, string | boolean>[] }>(
        `/v1/evm/transactions/${wallet}?limit=20&decode=true`,
      );
      if (referenceAvailable()) assertMatchesReference('TransactionsResponse', body);
      for (const tx of body.transactions) {
        const onChain = await rpc.getTransaction({ hash: tx.hash as `0x${string}` });
        const receipt = await rpc.getTransactionReceipt({ hash: tx.hash as `0x${string}` });
        expect(tx.block_hash).toBe(onChain.blockHash);
        expect(tx.block_number).toBe(String(onChain.blockNumber));
        expect(tx.from).toBe(onChain.from.toLowerCase());
        expect(tx.to).toBe(onChain.to?.toLowerCase());
        expect(BigInt(tx.value as string)).toBe(onChain.value);
        expect(tx.data).toBe(onChain.input);
        expect(tx.success).toBe(receipt.status === 'success');
        expect(BigInt(tx.gas_price as string)).toBe(receipt.effectiveGasPrice);
        expect([tx.from, tx.to]).toContain(wallet.toLowerCase());
      }
    }
  });

  it('token info and search find the scenario tokens', async () => {
    const { usdc } = devnet.manifest.tokens;
    const info = await get<{ tokens: Record<string, unknown>[] }>(
      `/v1/evm/token-info/${usdc.address}?chain_ids=31337`,
    );
    if (referenceAvailable()) assertMatchesReference('TokensResponse', info);
    expect(info.tokens[0]).toMatchObject({ symbol: usdc.symbol, decimals: usdc.decimals });
    const found = await get<Record<string, unknown>[]>(
      `/v1/evm/search/tokens?query=${usdc.symbol}`,
    );
    if (referenceAvailable()) assertMatchesReference('TokenSearchResponse', found);
    expect(found.map((t) => t.address)).toContain(usdc.address.toLowerCase());
  });
});

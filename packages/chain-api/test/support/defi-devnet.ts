import { join } from 'node:path';
import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { type Abi, type Address, createPublicClient, http, type PublicClient } from 'viem';
import type { ChainStatus } from '../../src/api/readiness.js';
import { createApiServer } from '../../src/api/server.js';
import type { ChainConfig } from '../../src/chains/chain-config.js';
import { knownChains } from '../../src/chains/index.js';
import { pricingLookups } from '../../src/cli/pricing-lookups.js';
import { compileContracts, type Devnet, startDevnet } from '../../src/devnet/index.js';
import { createScenarioClient } from '../../src/devnet/scenario-client.js';
import { indexOnce } from '../../src/ingest/index.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import { startPricing } from '../../src/pricing/index.js';
import { createRpcClient, type RpcClient } from '../../src/rpc/index.js';
import { storeMigrations } from '../../src/store/migrations.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are navigated freely in assertions
export type Body = Record<string, any>;

export type OddContracts = Record<
  'fakeVault' | 'reverting' | 'halfPair' | 'garbage' | 'fakeManager',
  Address
>;

export interface DefiDevnet {
  devnet: Devnet;
  t: TestDatabase;
  /** The indexed (and head) block every answer is read at. */
  block: bigint;
  /** Contracts alice holds that are no positions. */
  odd: OddContracts;
  abis: Record<string, Abi>;
  pub: PublicClient;
  /** The main API server's base URL. */
  base: string;
  /** Another API server over the same store (own node client, rate limit, chain config). */
  startApp(opts?: {
    rpcUrl?: string;
    rateLimitMax?: number;
    chain?: ChainConfig;
    timeoutMs?: number;
  }): Promise<string>;
  get(
    path: string,
    headers?: Record<string, string>,
    url?: string,
  ): Promise<{ res: Response; text: string; body: Body | undefined }>;
  setReady(ready: boolean): void;
  /** Current USD price from `token_prices`. */
  priceOf(token: string): Promise<number | null>;
  close(): Promise<void>;
}

/**
 * The devnet scenario (alice holds a v2 LP share, two v3 position NFTs and ERC-4626 shares) plus
 * odd contracts alice holds, indexed and priced into a fresh PostgreSQL schema, with an API
 * server reading positions from the devnet node.
 */
export async function startDefiDevnet(): Promise<DefiDevnet> {
  const log = pino({ level: 'silent' });
  const devnet = await startDevnet();
  const apps: FastifyInstance[] = [];
  const clients: RpcClient[] = [];
  let t: TestDatabase | undefined;
  try {
    const { wallets, tokens, contracts } = devnet.manifest;
    const fixtures = await compileContracts({
      contractsDir: join(import.meta.dirname, '..', 'fixtures', 'defi-contracts'),
    });
    const ctx = createScenarioClient(devnet.rpcUrl, fixtures);
    await ctx.impersonate([wallets.deployer]);
    const d = wallets.deployer;
    const odd: OddContracts = {
      fakeVault: await ctx.deploy('FakeVault', d, 'FakeVault', [
        tokens.usdc.address,
        wallets.alice,
      ]),
      reverting: await ctx.deploy('ProbeRevertingToken', d, 'ProbeRevertingToken', [wallets.alice]),
      halfPair: await ctx.deploy('HalfPair', d, 'HalfPair', [
        tokens.usdc.address,
        tokens.weth.address,
        wallets.alice,
      ]),
      garbage: await ctx.deploy('GarbageToken', d, 'GarbageToken', [wallets.alice]),
      fakeManager: await ctx.deploy('FakeManager', d, 'FakeManager', [
        contracts.uniswapV3Factory,
        wallets.alice,
      ]),
    };
    const compiled = await compileContracts();
    const abis = Object.fromEntries(Object.entries(compiled).map(([name, c]) => [name, c.abi]));

    const db = await createTestDatabase('postgres');
    t = db;
    await migrate(db.db, storeMigrations);
    await indexOnce({ db: db.db, chains: [devnet.chain], log });
    const pricing = await startPricing({ db: db.db, chains: [devnet.chain], log });
    await pricing.runOnce();
    await pricing.stop();
    const pub = createPublicClient({ transport: http(devnet.rpcUrl) });
    const block = await pub.getBlockNumber();
    const { key } = await createKeyStore(db.db).create({ name: 'defi' });
    let ready = true;

    const startApp: DefiDevnet['startApp'] = async (opts = {}) => {
      const rpc = createRpcClient({
        url: opts.rpcUrl ?? devnet.rpcUrl,
        log,
        maxAttempts: 2,
        backoffBaseMs: 20,
        timeoutMs: opts.timeoutMs ?? 5_000,
      });
      clients.push(rpc);
      const status = (): ChainStatus[] => [
        {
          chain_id: 31337,
          name: devnet.chain.name,
          head_block: Number(block),
          indexed_block: Number(block),
          lag_seconds: 0,
          ready,
        },
      ];
      const app = await createApiServer({
        db: db.db,
        chains: [opts.chain ?? devnet.chain],
        wellKnownChains: knownChains,
        statusSource: { status },
        cursorSecret: 'defi-cursor-secret-0123456789abcdef',
        rateLimit: { max: opts.rateLimitMax ?? 1_000_000, windowMs: 60_000 },
        pricing: pricingLookups(db.db, [devnet.chain]),
        responseCache: { maxBytes: 4_000_000, maxAgeMs: 30_000 },
        rpc: new Map([[31337, rpc]]),
      });
      apps.push(app);
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    };
    const base = await startApp();

    return {
      devnet,
      t: db,
      block,
      odd,
      abis,
      pub: pub as PublicClient,
      base,
      startApp,
      async get(path, headers = {}, url = base) {
        const res = await fetch(`${url}${path}`, {
          headers: { 'x-sim-api-key': key, ...headers },
        });
        const text = await res.text();
        return { res, text, body: text ? (JSON.parse(text) as Body) : undefined };
      },
      setReady(value) {
        ready = value;
      },
      async priceOf(token) {
        const { rows } = await db.db.query<{ price_usd: number | null }>(
          'select price_usd from token_prices where chain_id = 31337 and token = $1',
          [token],
        );
        return rows[0]?.price_usd ?? null;
      },
      async close() {
        for (const app of apps) await app.close();
        await Promise.all(clients.map((c) => c.close()));
        await devnet.stop();
        await db.drop();
      },
    };
  } catch (error) {
    for (const app of apps) await app.close();
    await devnet.stop();
    await t?.drop();
    throw error;
  }
}

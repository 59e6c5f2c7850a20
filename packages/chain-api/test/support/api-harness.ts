import { type Database, migrate, openDatabase } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ConsoleServerOptions } from '../../src/api/console/register-console.js';
import type { PricingLookups } from '../../src/api/context.js';
import type { RateLimitOptions } from '../../src/api/rate-limit.js';
import type { ReadFence } from '../../src/api/read-fence.js';
import type { ChainStatus, StatusSource } from '../../src/api/readiness.js';
import type { ResponseCacheConfig } from '../../src/api/response-cache/start-response-cache.js';
import type { SubscribeStoreChanges } from '../../src/api/response-cache/store-changes.js';
import { type ApiServerOptions, createApiServer } from '../../src/api/server.js';
import type { SubscriptionServerOptions } from '../../src/api/subscriptions/register-subscriptions.js';
import type { ChainConfig } from '../../src/chains/chain-config.js';
import { knownChains, resolveChainConfig } from '../../src/chains/index.js';
import type { RequestLimits } from '../../src/config/request-limits-config.js';
import { createKeyStore, type KeyStore } from '../../src/keys/key-store.js';
import type { NodeClientRegistry } from '../../src/rpc/node-client-registry.js';
import { storeMigrations } from '../../src/store/migrations.js';

type KeyLookup = Pick<KeyStore, 'findActiveByHash'>;

export interface TestApi {
  t: TestDatabase;
  /** The server's own connection (another pool than `t.db` on PostgreSQL, as in production). */
  serverDb: Database;
  /** `application_name` of the server's connections (PostgreSQL). */
  applicationName: string;
  app: FastifyInstance;
  url: string;
  key: string;
  chains: ChainConfig[];
  /** Flip a chain's readiness as the indexer would report it. */
  setReady(chainId: number, ready: boolean): void;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/** Ethereum, Base and the devnet, as served chains for route tests. */
export function testChains(): ChainConfig[] {
  return [1, 8453, 31337].map((id) => resolveChainConfig(id));
}

/**
 * One API server per test file on an ephemeral port, over a fresh PostgreSQL schema with every
 * migration applied, and one API key.
 */
export async function startTestApi(
  opts: {
    rateLimit?: Partial<RateLimitOptions>;
    chains?: ChainConfig[];
    pricing?: PricingLookups;
    /** Pricing lookups over the server's own connection (real queries). */
    pricingFrom?: (db: Database) => PricingLookups;
    logger?: FastifyBaseLogger;
    keyCacheTtlMs?: number;
    kind?: 'postgres' | 'pglite';
    responseCache?: ResponseCacheConfig;
    subscribeStoreChanges?: SubscribeStoreChanges;
    readFence?: ReadFence;
    console?: ConsoleServerOptions;
    webhooks?: SubscriptionServerOptions;
    limits?: Partial<RequestLimits>;
    nodes?: NodeClientRegistry;
    /** Connections of the server's pool (PostgreSQL; default 5). */
    poolMax?: number;
    computeUnits?: ApiServerOptions['computeUnits'];
    keyLookups?: ApiServerOptions['keyLookups'];
    trustProxy?: boolean;
    /** Wraps the key store the server looks keys up in (tests count lookups). */
    wrapKeyStore?: (store: KeyLookup) => KeyLookup;
  } = {},
): Promise<TestApi> {
  const t = await createTestDatabase(opts.kind ?? 'postgres');
  await migrate(t.db, storeMigrations);
  const chains = opts.chains ?? testChains();
  const ready = new Map<number, boolean>(chains.map((c) => [c.chainId, true]));
  const statusSource: StatusSource = {
    status: (): ChainStatus[] =>
      chains.map((c) => ({
        chain_id: c.chainId,
        name: c.name,
        head_block: 100,
        indexed_block: ready.get(c.chainId) ? 100 : 10,
        lag_seconds: 0,
        ready: ready.get(c.chainId) ?? false,
      })),
  };
  const { key } = await createKeyStore(t.db).create({ name: 'test' });
  const applicationName = `sluice-test-${Math.random().toString(36).slice(2, 10)}`;
  // Writes through t.db then reach the server the way the indexer's do: from another connection.
  const serverDb = t.url
    ? await openDatabase({ url: t.url, applicationName, max: opts.poolMax ?? 5 })
    : t.db;
  const app = await createApiServer({
    db: serverDb,
    chains,
    wellKnownChains: knownChains,
    statusSource,
    cursorSecret: 'test-cursor-secret-0123456789abcdef',
    rateLimit: { max: 1_000_000, windowMs: 60_000, ...opts.rateLimit },
    pricing: opts.pricing ?? opts.pricingFrom?.(serverDb),
    logger: opts.logger,
    keyCacheTtlMs: opts.keyCacheTtlMs,
    responseCache: opts.responseCache,
    subscribeStoreChanges: opts.subscribeStoreChanges,
    readFence: opts.readFence,
    console: opts.console,
    webhooks: opts.webhooks,
    limits: opts.limits,
    nodes: opts.nodes,
    computeUnits: opts.computeUnits,
    keyLookups: opts.keyLookups,
    trustProxy: opts.trustProxy,
    keyStore: opts.wrapKeyStore?.(createKeyStore(serverDb)),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    t,
    serverDb,
    applicationName,
    app,
    url,
    key,
    chains,
    setReady: (chainId, value) => ready.set(chainId, value),
    get: (path, headers = { 'x-sim-api-key': key }) => fetch(`${url}${path}`, { headers }),
    async close() {
      await app.close();
      if (serverDb !== t.db) await serverDb.close();
      await t.drop();
    },
  };
}

import { type Database, migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { createApiServer } from '../../src/api/server.js';
import type { ChainConfig } from '../../src/chains/index.js';
import { pricingLookups } from '../../src/cli/pricing-lookups.js';
import type { WebhooksConfig } from '../../src/config/index.js';
import type { WalletsOptions } from '../../src/config/wallets-config.js';
import { type AnvilInstance, startAnvil } from '../../src/devnet/index.js';
import { indexOnce } from '../../src/ingest/index.js';
import { createKeyStore } from '../../src/keys/key-store.js';
import type { Resolver } from '../../src/net/guarded-lookup.js';
import { storeMigrations } from '../../src/store/migrations.js';
import { type Dispatcher, startDispatcher } from '../../src/subscriptions/dispatcher.js';
import { indexOnce as indexWalletsOnce } from '../../src/wallets/start-indexers.js';
import {
  deployWorkload,
  rpcCall,
  send,
  type Workload,
  waitReceipt,
} from '../indexer/random-workload.js';
import { workloadChain } from '../indexer/workload-chain.js';

export const silent = pino({ level: 'silent' });
const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)']);

/** anvil with the random workload's contracts, a migrated store, an API key and an API server. */
export interface WebhookDevnet {
  anvil: AnvilInstance;
  w: Workload;
  t: TestDatabase;
  db: Database;
  keyId: string;
  key: string;
  chain: ChainConfig;
  app: FastifyInstance;
  apiUrl: string;
  /**
   * Indexes to the node's head, one block per batch (as at the head) unless `batchSize`;
   * `wallets` tunes a wallets-mode chain.
   */
  index(batchSize?: number, wallets?: Partial<WalletsOptions>): Promise<void>;
  head(): Promise<bigint>;
  /** eth_getBalance or balanceOf at `block`. */
  balanceAt(wallet: string, asset: string, block: bigint): Promise<bigint>;
  get(path: string): Promise<Record<string, unknown>>;
  dispatcher(
    config: Partial<WebhooksConfig>,
    extra?: {
      disableAfterMs?: number;
      resolve?: Resolver;
      timeoutMs?: number;
      quotaRecheckMs?: number;
    },
  ): Dispatcher;
  close(): Promise<void>;
}

/** Logo URL the devnet's first workload token has (with `logos`). */
export const TOKEN_LOGO = 'https://tokens.example/erc20-0.png';

/**
 * With `mode: 'wallets'` the chain is a wallets-mode chain (it follows from the head at the first
 * `index()`, keeping tracked wallets' rows only).
 */
export async function startWebhookDevnet(
  kind: 'postgres' | 'pglite' = 'postgres',
  opts: { logos?: boolean; mode?: 'wallets' } = {},
): Promise<WebhookDevnet> {
  const anvil = await startAnvil();
  const w = await deployWorkload(anvil.rpcUrl, 6, 41);
  // Each wallet sends once before any webhook exists, so the index knows its native balance
  // (the first balances item of an address the index never stored has no amount_before).
  for (const wallet of w.wallets)
    await waitReceipt(anvil.rpcUrl, await send(anvil.rpcUrl, wallet, wallet, '0x', 1n));
  const t = await createTestDatabase(kind);
  const db = t.db;
  await migrate(db, storeMigrations);
  const { key, record } = await createKeyStore(db).create({ name: 'webhooks test' });
  // With `logos`: the first token has a logo, and the API serves logos (its pricing lookups).
  const chain: ChainConfig = {
    ...workloadChain(anvil.rpcUrl, w, {
      finalityDepth: 64,
      ...(opts.logos ? { tokens: [{ address: w.erc20[0]!, logo: TOKEN_LOGO }] } : {}),
    }),
    ...(opts.mode ? { mode: opts.mode } : {}),
  };
  const app = await createApiServer({
    db,
    chains: [chain],
    statusSource: {
      status: () => [
        {
          chain_id: 31337,
          name: chain.name,
          head_block: 1,
          indexed_block: 1,
          lag_seconds: 0,
          ready: true,
        },
      ],
    },
    cursorSecret: 'test-cursor-secret-0123456789abcdef',
    rateLimit: { max: 1_000_000, windowMs: 60_000 },
    logger: undefined,
    // A wallets-mode read answers at once (no backfill runs unless the test indexes).
    ...(opts.mode === 'wallets' ? { walletWaitMs: 0 } : {}),
    ...(opts.logos ? { pricing: pricingLookups(db, [chain]) } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const dispatchers: Dispatcher[] = [];
  return {
    anvil,
    w,
    t,
    db,
    keyId: record.id,
    key,
    chain,
    app,
    apiUrl,
    async index(batchSize = 1, wallets = {}) {
      const opts = { db, chains: [chain], log: silent, batchSize, maxBatchSize: batchSize };
      if (chain.mode === 'wallets') await indexWalletsOnce({ ...opts, wallets });
      else await indexOnce(opts);
    },
    head: async () => BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_blockNumber')),
    async balanceAt(wallet, asset, block) {
      const tag = `0x${block.toString(16)}`;
      if (asset === 'native') {
        return BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_getBalance', [wallet, tag]));
      }
      const data = encodeFunctionData({
        abi: erc20,
        functionName: 'balanceOf',
        args: [wallet as Hex],
      });
      return BigInt(await rpcCall<string>(anvil.rpcUrl, 'eth_call', [{ to: asset, data }, tag]));
    },
    async get(path) {
      const res = await fetch(`${apiUrl}${path}`, { headers: { 'x-sim-api-key': key } });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    },
    dispatcher(config, extra = {}) {
      const d = startDispatcher({
        db,
        log: silent,
        config: {
          allowHosts: ['127.0.0.1'],
          retryScheduleMs: [100, 200, 300, 400, 500],
          pollIntervalMs: 20,
          concurrency: 16,
          ...config,
        },
        ...extra,
      });
      dispatchers.push(d);
      return d;
    },
    async close() {
      for (const d of dispatchers) await d.stop();
      await app.close();
      await t.drop();
      await anvil.stop();
    },
  };
}

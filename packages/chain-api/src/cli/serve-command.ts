import { parseArgs } from 'node:util';
import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import { loadCursorSecret } from '../api/cursor-secret.js';
import { checkpointStatusSource, type StatusSource } from '../api/readiness.js';
import { createApiServer } from '../api/server.js';
import type { ChainConfig } from '../chains/index.js';
import { knownChains } from '../chains/index.js';
import { redisChangeChannel, startChangeRelay } from '../change-feed/redis-change-feed.js';
import type { AppConfig } from '../config/index.js';
import { createKeyStore, keysReadThenPrimary } from '../keys/key-store.js';
import { createRedisUsageStore, usageNamespace } from '../keys/redis-usage-store.js';
import { createDbUsageStore } from '../keys/usage-store.js';
import { createNodeClientRegistry } from '../rpc/index.js';
import { startDispatcher } from '../subscriptions/dispatcher.js';
import type { Background } from './background.js';
import { printBanner } from './banner.js';
import { acquireDevnetLock, assertPortFree, loadDevnetDemoKey } from './devnet-guard.js';
import { openReads, readServersHealth } from './open-reads.js';
import { openApiPool, openStore } from './open-store.js';
import { pricingLookups } from './pricing-lookups.js';
import { openRedis } from './redis-client.js';
import { resolveChains } from './resolve-chains.js';

type RedisClient = ReturnType<typeof openRedis>;

export interface ServeFlags {
  /** Start the local devnet (anvil + scenario + trickle) and serve it. */
  devnet: boolean;
  /** API only: no indexer, pricing or NFT worker here (another process indexes). */
  index: boolean;
  /** Run the HTTP API (false for `sluice-chain index`). */
  api: boolean;
}

export function parseServeFlags(args: string[], api: boolean): ServeFlags {
  const { values } = parseArgs({
    args,
    options: {
      devnet: { type: 'boolean', default: false },
      'no-index': { type: 'boolean', default: false },
    },
    strict: true,
  });
  return { devnet: values.devnet, index: !values['no-index'], api };
}

interface Running {
  stop(): Promise<void>;
}

/**
 * `sluice-chain serve` (API + indexers + pricing + NFT worker), `serve --no-index` (API only,
 * readiness from checkpoints), `index` (workers only). Resolves when stopped by a signal.
 */
export async function serveCommand(
  flags: ServeFlags,
  config: AppConfig,
  log: Logger,
): Promise<Running> {
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => log.error({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    const host = flags.devnet && !config.hostSet ? '127.0.0.1' : config.host;
    if (flags.devnet) {
      // Before anything starts or is deleted: a second `npm start` must leave the first alone.
      if (flags.api) await assertPortFree(host, config.port);
      const releaseLock = acquireDevnetLock(config.dataDir);
      cleanups.push(async () => releaseLock());
    }
    const { chains, devnet } = await resolveChains(flags.devnet, config, log);
    if (devnet) cleanups.push(() => devnet.stop());
    // One transport per node URL for the indexers, the NFT worker and the API's node reads.
    const nodes = createNodeClientRegistry();
    cleanups.push(() => nodes.close());

    const db: Database = await openStore(config, { devnet: flags.devnet });
    cleanups.push(() => db.close());
    // Requests read through their own pool, with timeouts (a second pool on PostgreSQL).
    const apiDb = flags.api ? await openApiPool(config, db, { devnet: flags.devnet }) : db;
    if (apiDb !== db) cleanups.push(() => apiDb.close());
    // Keys are created and seeded on the primary (where the CLI creates them too).
    const keyStore = createKeyStore(apiDb);
    if (config.apiKeys.length > 0) await keyStore.seed(config.apiKeys);
    let redis: RedisClient | undefined;
    if (config.redisUrl) {
      redis = openRedis(
        config.redisUrl,
        log,
        'rate limits counted per process, compute units not counted, response cache bypassed',
      );
      cleanups.push(redis.close);
    }

    // Every serve/index process sends webhook deliveries; their claims never overlap. Delivered
    // events are charged where the API counts compute units.
    const dispatcher = startDispatcher({
      db,
      log: log.child({ worker: 'webhooks' }),
      config: config.webhooks,
      usage: redis
        ? createRedisUsageStore(redis.redis, usageNamespace, () => {})
        : createDbUsageStore(apiDb),
    });
    cleanups.push(() => dispatcher.stop());

    let background: Background | undefined;
    if (flags.index) {
      const { startBackground } = await import('./background.js');
      background = await startBackground({
        db,
        chains,
        log,
        config,
        nodes,
        devnetMetadataUrl: devnet?.metadataUrl,
      });
      cleanups.push(() => background!.stop());
      if (redis && db.kind === 'postgres') {
        // API processes hear of changes through Redis instead of each LISTENing on the primary.
        const relay = await startChangeRelay({
          primary: db,
          redis: redis.redis,
          channel: await redisChangeChannel(db),
        });
        cleanups.push(() => relay.close());
      }
    }
    if (!flags.api) return { stop };

    const reads = await openReads(config, apiDb, redis, log, flags.devnet);
    cleanups.push(reads.close);
    const statusSource: StatusSource = background
      ? { status: () => background.status() }
      : checkpointStatusSource(reads.db, chains);

    const demoKey = flags.devnet ? await devnetDemoKey(keyStore, config) : undefined;
    // The image proxy follows the NFT worker's fetch settings (gateways, exempt hosts).
    const nftEnv = config.nft;
    const app = await createApiServer({
      db: reads.db,
      writeDb: apiDb,
      webhooks: { allowHosts: config.webhooks.allowHosts },
      changeFeed: reads.feed,
      readFence: reads.fence,
      readServers: reads.router ? () => readServersHealth(reads.router!) : undefined,
      webhookDispatcher: dispatcher,
      chains,
      nodes,
      wellKnownChains: knownChains,
      statusSource,
      cursorSecret: await loadCursorSecret(db, config.cursorSecret),
      keyStore: reads.router ? keysReadThenPrimary(createKeyStore(reads.db), keyStore) : keyStore,
      keyCacheTtlMs: config.keyCacheTtlMs,
      keyLookups: config.keyLookups,
      // Shared by every API process: Redis when configured, else the primary database.
      computeUnits: redis
        ? { store: createRedisUsageStore(redis.redis, usageNamespace, () => {}) }
        : { store: createDbUsageStore(apiDb) },
      rateLimit: { ...config.rateLimit, redis: redis?.redis },
      logger: log,
      trustProxy: config.trustProxy,
      // A request reads prices through its own view (requestContext): the deadline and the
      // key's database slots apply to them as to the routes' own reads.
      pricing: pricingLookups(reads.db, chains),
      limits: config.limits,
      responseCache: config.responseCache,
      walletWaitMs: config.wallets.waitMs,
      exampleWallet: devnet?.manifest.wallets.alice,
      console: {
        demoKey,
        images: {
          ipfsGateway: nftEnv.ipfsGateway,
          arweaveGateway: nftEnv.arweaveGateway,
          allowPrivateHosts: nftEnv.allowPrivateHosts,
          allowHosts: [
            ...(nftEnv.allowHosts ?? []),
            ...(devnet ? [new URL(devnet.metadataUrl).host] : []),
          ],
        },
      },
    });
    // Closing the server first stops new requests while the store is still open for in-flight ones.
    cleanups.push(() => app.close());
    await app.listen({ port: config.port, host });

    // With the devnet, print the banner once its first backfill is done so the curls answer data.
    if (devnet) await waitUntilReady(statusSource, 120_000);
    printBanner({
      app,
      host,
      port: config.port,
      chains,
      devnet,
      demoKey,
      demoWebhook: config.devnet.demoWebhook,
    });
    return { stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitUntilReady(source: StatusSource, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const statuses = await source.status();
    if (statuses.every((s) => s.ready)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * `npm start` prints a working key: the first API_KEYS entry, else the "devnet demo" key kept in
 * DATA_DIR (the same across restarts; the devnet store itself is new at every start).
 */
async function devnetDemoKey(
  keyStore: ReturnType<typeof createKeyStore>,
  config: AppConfig,
): Promise<string> {
  if (config.apiKeys[0]) return config.apiKeys[0];
  const key = loadDevnetDemoKey(config.dataDir);
  await keyStore.seed([key], 'devnet demo');
  return key;
}

export type { ChainConfig };

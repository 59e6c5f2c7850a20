import { parseArgs } from 'node:util';
import type { Database } from '@sluice/db';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { loadCursorSecret } from '../api/cursor-secret.js';
import { checkpointStatusSource, type StatusSource } from '../api/readiness.js';
import { createApiServer } from '../api/server.js';
import type { ChainConfig } from '../chains/index.js';
import { knownChains } from '../chains/index.js';
import type { AppConfig } from '../config.js';
import { createKeyStore } from '../keys/key-store.js';
import type { Background } from './background.js';
import { printBanner } from './banner.js';
import { openStore } from './open-store.js';
import { pricingLookups } from './pricing-lookups.js';
import { resolveChains } from './resolve-chains.js';

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
  env: NodeJS.ProcessEnv = process.env,
): Promise<Running> {
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => log.error({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    const { chains, devnet } = await resolveChains(flags.devnet, env, log);
    if (devnet) cleanups.push(() => devnet.stop());

    const db: Database = await openStore(config, { devnet: flags.devnet });
    cleanups.push(() => db.close());
    const keyStore = createKeyStore(db);
    if (config.apiKeys.length > 0) await keyStore.seed(config.apiKeys);

    let background: Background | undefined;
    if (flags.index) {
      const { startBackground } = await import('./background.js');
      background = await startBackground({
        db,
        chains,
        log,
        devnetMetadataUrl: devnet?.metadataUrl,
      });
      cleanups.push(() => background!.stop());
    }
    if (!flags.api) return { stop };

    const statusSource: StatusSource = background
      ? { status: () => background.status() }
      : checkpointStatusSource(db, chains);

    let redis: Redis | undefined;
    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
      });
      redis.on('error', (error) => log.warn({ err: error.message }, 'redis unavailable'));
      await redis.connect();
      const client = redis;
      cleanups.push(async () => {
        await client.quit();
      });
    }

    const app = await createApiServer({
      db,
      chains,
      wellKnownChains: knownChains,
      statusSource,
      cursorSecret: await loadCursorSecret(db, config.cursorSecret),
      keyStore,
      keyCacheTtlMs: config.keyCacheTtlMs,
      rateLimit: { ...config.rateLimit, redis },
      logger: log,
      trustProxy: config.trustProxy,
      pricing: pricingLookups(db, chains),
      responseCache: config.responseCache,
    });
    // Closing the server first stops new requests while the store is still open for in-flight ones.
    cleanups.push(() => app.close());
    const host = flags.devnet && !env.HOST ? '127.0.0.1' : config.host;
    await app.listen({ port: config.port, host });

    const demoKey = flags.devnet ? await devnetDemoKey(keyStore, config) : undefined;
    // With the devnet, print the banner once its first backfill is done so the curls answer data.
    if (devnet) await waitUntilReady(statusSource, 120_000);
    printBanner({ app, host, port: config.port, chains, devnet, demoKey });
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

/** `npm start` prints a working key: the first API_KEYS entry, else a fresh "devnet demo" key. */
async function devnetDemoKey(
  keyStore: ReturnType<typeof createKeyStore>,
  config: AppConfig,
): Promise<string> {
  if (config.apiKeys[0]) return config.apiKeys[0];
  for (const key of await keyStore.list()) {
    if (key.name === 'devnet demo') await keyStore.revoke(key.id);
  }
  return (await keyStore.create({ name: 'devnet demo' })).key;
}

export type { ChainConfig };

import { randomUUID } from 'node:crypto';
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import type { Database, Queryable } from '@sluice/db';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ChainConfig } from '../chains/chain-config.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { defaultRequestLimits, type RequestLimits } from '../config/request-limits-config.js';
import { ConfigError } from '../errors/index.js';
import { createKeyStore, type KeyStore } from '../keys/key-store.js';
import { createUsageMeter, type UsageMeterOptions } from '../keys/usage-meter.js';
import { createDbUsageStore, type UsageStore } from '../keys/usage-store.js';
import type { RpcClient } from '../rpc/create-rpc-client.js';
import { createNodeClientRegistry, type NodeClientRegistry } from '../rpc/node-client-registry.js';
import type { TransactionalDb } from '../store/subscriptions/webhook-row.js';
import type { Dispatcher } from '../subscriptions/dispatcher.js';
import { createPriceCoverage } from '../wallets/price-coverage.js';
import { createWalletGate } from '../wallets/wallet-gate.js';
import { createKeyVerifier, requireApiKey } from './auth.js';
import { createChainRegistry, type SelectableChain } from './chain-selector.js';
import { compressSmallAnswers } from './compress-small.js';
import { chargeComputeUnits } from './compute-units/charge-units.js';
import {
  type ConsoleServerOptions,
  consolePageOptions,
  registerConsole,
} from './console/register-console.js';
import type { ApiContext, PricingLookups } from './context.js';
import { createCursorCodec } from './cursor.js';
import { registerErrorHandlers } from './error-handlers.js';
import { createPastStateReader, type PastStateReader } from './history/state-reader.js';
import { createKeyLookupLimit } from './key-lookup-guard.js';
import { registerRequestDeadline } from './limits/request-deadline.js';
import { holdRequestSlot } from './limits/request-slots.js';
import { apiNodeClients } from './node-clients.js';
import { registerOpenApi } from './openapi.js';
import type { ReadDb } from './queries/prepared-query.js';
import { type RateLimitOptions, registerRateLimit } from './rate-limit.js';
import { type ReadFence, useReadFence } from './read-fence.js';
import type { StatusSource } from './readiness.js';
import { requestLoggerFactory } from './request-logger.js';
import {
  type ResponseCacheConfig,
  startResponseCache,
} from './response-cache/start-response-cache.js';
import {
  listenOnDatabase,
  type SubscribeStoreChanges,
  subscribeToFeed,
} from './response-cache/store-changes.js';
import { activityRoute } from './routes/activity.js';
import { balancesRoute } from './routes/balances.js';
import { collectiblesRoute } from './routes/collectibles.js';
import { defiPositionsRoute } from './routes/defi-positions.js';
import { defiSupportedProtocolsRoute } from './routes/defi-supported-protocols.js';
import { healthRoute, type ReadServersHealth } from './routes/health.js';
import { landingRoute } from './routes/landing.js';
import { portfolioRoute } from './routes/portfolio.js';
import { stablecoinsRoute } from './routes/stablecoins.js';
import { supportedChainsRoute } from './routes/supported-chains.js';
import { tokenBalanceRoute } from './routes/token-balance.js';
import { tokenHoldersRoute } from './routes/token-holders.js';
import { tokenInfoRoute } from './routes/token-info.js';
import { tokenSearchRoute } from './routes/token-search.js';
import { transactionsRoute } from './routes/transactions.js';
import { walletsTrackRoute } from './routes/wallets-track.js';
import { webhookDeliveriesRoute } from './routes/webhook-deliveries.js';
import {
  registerSubscriptions,
  type SubscriptionServerOptions,
} from './subscriptions/register-subscriptions.js';

export interface ApiServerOptions {
  /** Where reads go: the store, or a `ReadRouter` over standbys and the primary. */
  db: ReadDb & Pick<Database, 'ping'>;
  /**
   * Where the API's own writes go (cached probe answers, webhook subscriptions, which it also
   * reads there); default `db`. The primary: it must run transactions.
   */
  writeDb?: Queryable;
  /**
   * Store change announcements for the response cache. Absent: LISTEN on `db` (which must then
   * be a `Database`), opened and closed here.
   */
  changeFeed?: ChangeFeed;
  /** The read path's state for /health (with a `ReadRouter`). */
  readServers?: () => ReadServersHealth;
  /** The webhook dispatcher of this process, for /health (absent: outbox counts only). */
  webhookDispatcher?: Pick<Dispatcher, 'counters'>;
  /**
   * Runs before each keyed request's handler (see `useReadFence`): answers never older than
   * what another API process already served. Absent: no fence (one API process).
   */
  readFence?: ReadFence;
  /** Chains this deployment serves (indexes). */
  chains: readonly ChainConfig[];
  /** Well-known chains, so `chain_ids=ethereum` gets a precise "names are not accepted". */
  wellKnownChains?: readonly SelectableChain[];
  statusSource: StatusSource;
  /** HMAC secret of pagination cursors (same on every replica). */
  cursorSecret: string | Uint8Array;
  /** Where presented keys are looked up (default: `db`). */
  keyStore?: Pick<KeyStore, 'findActiveByHash'>;
  keyCacheTtlMs?: number;
  /**
   * Before a key is looked up: store lookups per client address and window (counted in Redis
   * with `rateLimit.redis`), and how long unknown keys are answered from memory. Default 120 per
   * minute, 30 s.
   */
  keyLookups?: { perIp: number; windowMs: number; unknownKeyTtlMs?: number };
  /**
   * Compute-unit accounting of keyed requests: where usage is counted (default: the database
   * behind `writeDb`) and lease tuning. `false`: off (benchmarks compare with it).
   */
  computeUnits?: { store?: UsageStore; meter?: UsageMeterOptions } | false;
  rateLimit: RateLimitOptions;
  /** A pino logger; Fastify's logger is disabled when absent. */
  logger?: FastifyBaseLogger;
  /** Trust X-Forwarded-* from a reverse proxy (for client IPs on public routes). */
  trustProxy?: boolean;
  lowLiquidityUsd?: number;
  spamPoolUsd?: number;
  pricing?: PricingLookups;
  version?: string;
  /**
   * Keep serialized responses in memory until a store change names what they were built from
   * (announced over LISTEN/NOTIFY) or `maxAgeMs` passes. Absent or `maxBytes: 0`: off.
   */
  responseCache?: ResponseCacheConfig | undefined;
  /** How store changes reach this process (default: LISTEN on `db`). */
  subscribeStoreChanges?: SubscribeStoreChanges | undefined;
  /** Wallets-mode chains: how long a first request waits for the wallet's backfill (default 10 s). */
  walletWaitMs?: number;
  /** Wallet of the landing page's example requests (the devnet demo wallet under `npm start`). */
  exampleWallet?: string;
  /**
   * The process's node clients (the caller closes them). Default: a registry of the server's
   * own, closed with it.
   */
  nodes?: NodeClientRegistry;
  /** Node reads for balances at past blocks; default: the registry's `history` clients. */
  pastState?: PastStateReader;
  /**
   * JSON-RPC clients per chain id for reads at the indexed head (DeFi positions); the caller
   * closes them. Default: the registry's `api` clients.
   */
  rpc?: ReadonlyMap<number, RpcClient>;
  /** The browser console and wallet explorer (at `/` for browsers) and the image proxy. */
  console?: ConsoleServerOptions;
  /** What one request may cost (deadline, node reads, rows, per-key slots); default: the defaults. */
  limits?: Partial<RequestLimits> | undefined;
  /** Webhook subscriptions (/beta/evm/subscriptions): delivery hosts exempt from the SSRF refusal. */
  webhooks?: SubscriptionServerOptions;
}

function isTransactional(db: Queryable): db is TransactionalDb {
  return typeof (db as Partial<TransactionalDb>).transaction === 'function';
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Builds the HTTP API (not listening yet): /v1/evm/* behind API keys and rate limits, public
 * /v1/evm/supported-chains, /health, /openapi.json and /docs.
 *
 * @example
 * const app = await createApiServer({ db, chains, statusSource, cursorSecret, rateLimit });
 * await app.listen({ port: 3100 });
 */
export async function createApiServer(opts: ApiServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(opts.logger
      ? { loggerInstance: opts.logger, childLoggerFactory: requestLoggerFactory }
      : { logger: false }),
    trustProxy: opts.trustProxy ?? false,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    },
    // Path parameters up to the request-line limit reach our parsers (a 400 naming the parameter).
    routerOptions: { maxParamLength: 16_384, ignoreTrailingSlash: true },
    // Parameters are checked by the routes' own parsers (precise 400s that name the parameter,
    // clamping); the JSON schemas document them and serialize responses.
    schemaErrorFormatter: (errors) => new Error(errors[0]?.message ?? 'invalid request'),
  });
  app.setValidatorCompiler(() => () => true);
  app.decorateRequest('apiKey', null);

  const walletWaitMs = opts.walletWaitMs ?? 10_000;
  const configured: RequestLimits = { ...defaultRequestLimits, ...opts.limits };
  // A first request for a wallets-mode wallet may wait for its backfill: the deadline covers the
  // wait, so such a request answers (with its warning) instead of timing out.
  const wallets = opts.chains.some((c) => c.mode === 'wallets');
  const limits: RequestLimits = wallets
    ? { ...configured, timeoutMs: Math.max(configured.timeoutMs, walletWaitMs + 2_000) }
    : configured;
  // First hook: every request gets its deadline and scope before anything else (auth included).
  registerRequestDeadline(app, limits);
  const ownNodes = opts.nodes ? undefined : createNodeClientRegistry();
  const nodes = opts.nodes ?? (ownNodes as NodeClientRegistry);
  const ctx: ApiContext = {
    db: opts.db,
    writeDb: opts.writeDb ?? opts.db,
    registry: createChainRegistry(opts.chains, opts.wellKnownChains),
    cursors: createCursorCodec(opts.cursorSecret),
    statusSource: opts.statusSource,
    lowLiquidityUsd: opts.lowLiquidityUsd ?? 10_000,
    spamPoolUsd: opts.spamPoolUsd ?? 100,
    pricing: opts.pricing,
    pastState: opts.pastState ?? createPastStateReader(nodes),
    rpc: opts.rpc ?? apiNodeClients(nodes, opts.chains),
    wallets: opts.chains.some((c) => c.mode === 'wallets')
      ? createWalletGate(opts.writeDb ?? opts.db, opts.chains, {
          waitMs: walletWaitMs,
        })
      : undefined,
    priceCoverage: createPriceCoverage(opts.db, opts.chains),
  };
  app.addHook('onClose', async () => {
    await ctx.pastState?.close();
  });
  if (ownNodes) app.addHook('onClose', () => ownNodes.close());

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Some error bodies (activity's, as the peer sends them) are text/plain echoing input.
    reply.header('x-content-type-options', 'nosniff');
    done();
  });

  registerErrorHandlers(app);

  // Before the plugin's own hook: small answers are compressed in place, larger ones stream.
  compressSmallAnswers(app, { threshold: 1024, maxBytes: 64 * 1024, brotliQuality: 4 });
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip', 'deflate'],
    // Brotli's default quality (11) costs milliseconds per response; 4 is close in size and fast.
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
  });
  await registerOpenApi(app, opts.version ?? '1.0.0');
  await registerRateLimit(app, opts.rateLimit);

  const meter =
    opts.computeUnits === false
      ? undefined
      : createUsageMeter(opts.computeUnits?.store ?? createDbUsageStore(ctx.writeDb), {
          onError: (error) => app.log.warn({ err: error }, 'compute-unit accounting failed'),
          ...opts.computeUnits?.meter,
        });
  if (meter) app.addHook('onClose', () => meter.close());

  await app.register(
    healthRoute({
      ...ctx,
      ping: () => opts.db.ping(),
      readServers: opts.readServers,
      webhooks: opts.webhookDispatcher,
      usage: meter && (() => meter.totals()),
    }),
  );
  const consolePage = consolePageOptions(opts.console);
  await app.register(
    landingRoute({
      chains: opts.chains,
      version: opts.version ?? '1.0.0',
      exampleWallet: opts.exampleWallet,
      console: consolePage,
    }),
  );

  const keyLookups = opts.keyLookups ?? { perIp: 120, windowMs: 60_000 };
  const verifier = createKeyVerifier(opts.keyStore ?? createKeyStore(opts.db), {
    cacheTtlMs: opts.keyCacheTtlMs,
    unknownKeyTtlMs: keyLookups.unknownKeyTtlMs,
    lookupLimit: createKeyLookupLimit({
      perIp: keyLookups.perIp,
      windowMs: keyLookups.windowMs,
      redis: opts.rateLimit.redis,
      namespace: `${opts.rateLimit.namespace ?? 'sluice-rate-limit:'}key-lookups:`,
      contact: opts.rateLimit.contact,
      onRedisFallback: opts.rateLimit.onRedisFallback,
    }),
  });
  await registerConsole(app, {
    page: consolePage,
    options: opts.console,
    cursorSecret: opts.cursorSecret,
    verifier,
    db: opts.db,
    chains: opts.chains,
    statusSource: opts.statusSource,
    rpc: ctx.rpc,
  });
  const primary = opts.writeDb ?? opts.db;
  if (!isTransactional(primary)) {
    throw new ConfigError(
      'writeDb',
      'the API needs the primary database (writeDb) with transactions for webhook subscriptions',
    );
  }
  await registerSubscriptions(app, {
    db: primary,
    verifier,
    cursors: ctx.cursors,
    supportedChains: new Set([
      ...opts.chains.map((c) => c.chainId),
      ...(opts.wellKnownChains ?? []).map((c) => c.chainId),
    ]),
    options: opts.webhooks,
  });
  await app.register(
    async (v1) => {
      await v1.register(supportedChainsRoute(ctx));
      await v1.register(async (keyed) => {
        keyed.addHook('onRequest', requireApiKey(verifier));
        keyed.addHook('onRequest', holdRequestSlot());
        if (opts.readFence) useReadFence(keyed, opts.readFence);
        if (meter) {
          chargeComputeUnits(keyed, {
            meter,
            registry: ctx.registry,
            contact: opts.rateLimit.contact,
          });
        }
        await keyed.register(activityRoute(ctx));
        await keyed.register(balancesRoute(ctx));
        await keyed.register(tokenBalanceRoute(ctx));
        await keyed.register(collectiblesRoute(ctx));
        await keyed.register(transactionsRoute(ctx));
        await keyed.register(tokenHoldersRoute(ctx));
        await keyed.register(tokenInfoRoute(ctx));
        await keyed.register(stablecoinsRoute(ctx));
        await keyed.register(tokenSearchRoute(ctx));
        await keyed.register(portfolioRoute(ctx));
        await keyed.register(defiPositionsRoute(ctx));
        await keyed.register(defiSupportedProtocolsRoute(ctx));
        if (ctx.wallets) {
          await keyed.register(walletsTrackRoute({ ...ctx, chains: opts.chains }));
        }
      });
    },
    { prefix: '/v1/evm' },
  );
  await app.register(
    async (beta) => {
      beta.addHook('onRequest', requireApiKey(verifier));
      await beta.register(webhookDeliveriesRoute(ctx));
    },
    { prefix: '/beta/evm' },
  );
  // Last, so a failure above cannot leave the LISTEN connection open; handlers read
  // ctx.caching per request.
  if (opts.responseCache && opts.responseCache.maxBytes > 0) {
    const subscribe =
      opts.subscribeStoreChanges ??
      (opts.changeFeed ? subscribeToFeed(opts.changeFeed) : undefined) ??
      ('listen' in opts.db ? listenOnDatabase(opts.db as Database) : undefined);
    if (!subscribe) {
      throw new ConfigError('responseCache', 'responseCache needs a changeFeed or a Database');
    }
    const started = await startResponseCache(opts.db, opts.responseCache, subscribe);
    ctx.caching = started.caching;
    app.addHook('onClose', async () => {
      await started.close();
    });
  }
  return app;
}

import { randomUUID } from 'node:crypto';
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import type { Database } from '@sluice/db';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ChainConfig } from '../chains/chain-config.js';
import { createKeyStore, type KeyStore } from '../keys/key-store.js';
import { createKeyVerifier, requireApiKey } from './auth.js';
import { createChainRegistry, type SelectableChain } from './chain-selector.js';
import type { ApiContext, PricingLookups } from './context.js';
import { createCursorCodec } from './cursor.js';
import { ApiError, type ErrorFormat, renderError } from './errors.js';
import { registerOpenApi } from './openapi.js';
import { type RateLimitOptions, registerRateLimit } from './rate-limit.js';
import type { StatusSource } from './readiness.js';
import { ResponseCache } from './response-cache/response-cache.js';
import { watchStoreVersion } from './response-cache/store-version.js';
import { activityRoute } from './routes/activity.js';
import { balancesRoute } from './routes/balances.js';
import { collectiblesRoute } from './routes/collectibles.js';
import { healthRoute } from './routes/health.js';
import { supportedChainsRoute } from './routes/supported-chains.js';
import { tokenBalanceRoute } from './routes/token-balance.js';

export interface ApiServerOptions {
  db: Database;
  /** Chains this deployment serves (indexes). */
  chains: readonly ChainConfig[];
  /** Well-known chains, so `chain_ids=ethereum` gets a precise "names are not accepted". */
  wellKnownChains?: readonly SelectableChain[];
  statusSource: StatusSource;
  /** HMAC secret of pagination cursors (same on every replica). */
  cursorSecret: string | Uint8Array;
  keyStore?: KeyStore;
  keyCacheTtlMs?: number;
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
   * Keep serialized responses in memory until the store changes (announced by the store's
   * triggers over LISTEN/NOTIFY) or `maxAgeMs` passes. Absent or `maxBytes: 0`: off.
   */
  responseCache?: { maxBytes: number; maxAgeMs: number } | undefined;
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
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
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

  const ctx: ApiContext = {
    db: opts.db,
    registry: createChainRegistry(opts.chains, opts.wellKnownChains),
    cursors: createCursorCodec(opts.cursorSecret),
    statusSource: opts.statusSource,
    lowLiquidityUsd: opts.lowLiquidityUsd ?? 10_000,
    spamPoolUsd: opts.spamPoolUsd ?? 100,
    pricing: opts.pricing,
  };

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.setErrorHandler((error, request, reply) => {
    const format: ErrorFormat = request.routeOptions.config?.errorFormat ?? 'error';
    let status: number;
    let rendered: { contentType: string; body: string };
    if (error instanceof ApiError) {
      status = error.statusCode;
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      rendered = renderError(error, format);
    } else {
      const code = (error as { statusCode?: unknown }).statusCode;
      if (typeof code === 'number' && code >= 400 && code < 500) {
        status = code;
        rendered = renderError({ message: (error as Error).message }, format);
      } else {
        status = 500;
        request.log.error({ err: error }, 'request failed');
        rendered = renderError(new ApiError('INTERNAL'), format);
      }
    }
    if (status >= 400 && status < 500 && status !== 401 && status !== 429) {
      request.log.info({ status, reason: rendered.body.slice(0, 200) }, 'request rejected');
    }
    return reply.code(status).header('content-type', rendered.contentType).send(rendered.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const rendered = renderError(
      new ApiError('NOT_FOUND', `Not found: ${request.method} ${request.url.split('?')[0]}`),
      'error',
    );
    return reply.code(404).header('content-type', rendered.contentType).send(rendered.body);
  });

  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip', 'deflate'],
    // Brotli's default quality (11) costs milliseconds per response; 4 is close in size and fast.
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
  });
  await registerOpenApi(app, opts.version ?? '1.0.0');
  await registerRateLimit(app, opts.rateLimit);

  await app.register(healthRoute({ ...ctx, ping: () => opts.db.ping() }));

  const verifier = createKeyVerifier(opts.keyStore ?? createKeyStore(opts.db), {
    cacheTtlMs: opts.keyCacheTtlMs,
  });
  await app.register(
    async (v1) => {
      await v1.register(supportedChainsRoute(ctx));
      await v1.register(async (keyed) => {
        keyed.addHook('onRequest', requireApiKey(verifier));
        await keyed.register(activityRoute(ctx));
        await keyed.register(balancesRoute(ctx));
        await keyed.register(tokenBalanceRoute(ctx));
        await keyed.register(collectiblesRoute(ctx));
      });
    },
    { prefix: '/v1/evm' },
  );
  // Last, so a failure above cannot leave the LISTEN connection open; handlers read
  // ctx.caching per request.
  if (opts.responseCache && opts.responseCache.maxBytes > 0) {
    const version = await watchStoreVersion(opts.db);
    ctx.caching = { cache: new ResponseCache(opts.responseCache), version };
    app.addHook('onClose', async () => {
      await version.close();
    });
  }
  return app;
}

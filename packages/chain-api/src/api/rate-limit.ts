import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimited } from './errors.js';
import { redisOrLocalStore } from './rate-limit-store.js';

export interface RateLimitOptions {
  /** Requests per window for a key without its own limit. */
  max: number;
  windowMs: number;
  /** Shared counters across replicas; in-process counters when absent. */
  redis?: Redis | undefined;
  /** Redis key prefix (tests use one per file). */
  namespace?: string;
  /** Who the 429 message refers callers to for a higher limit. */
  contact?: string;
  /** Told when Redis is unreachable and counting falls back to this process. */
  onRedisFallback?: (error: Error | undefined) => void;
}

/**
 * Fixed-window limits per API key (per client IP on public routes), counted atomically in Redis
 * (one Lua INCR + PEXPIRE) when `redis` is given so every replica shares the budget. Routes
 * opt out with `config: { rateLimit: false }`. While Redis is unreachable each replica counts in
 * its own memory (fail open: requests are not failed, limits apply per process).
 */
export async function registerRateLimit(app: FastifyInstance, opts: RateLimitOptions) {
  const namespace = opts.namespace ?? 'sluice-rate-limit:';
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: (request) => request.apiKey?.rateLimit ?? opts.max,
    timeWindow: opts.windowMs,
    keyGenerator: (request) => (request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`),
    ...(opts.redis
      ? { store: redisOrLocalStore(opts.redis, namespace, opts.onRedisFallback ?? (() => {})) }
      : {}),
    nameSpace: namespace,
    skipOnError: true,
    errorResponseBuilder: (_request, context) => rateLimited(context.ttl / 1000, opts.contact),
  });
}

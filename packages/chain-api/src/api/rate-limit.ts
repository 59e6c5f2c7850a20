import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimited } from './errors.js';

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
}

/**
 * Fixed-window limits per API key (per client IP on public routes), counted atomically in Redis
 * (one Lua INCR + PEXPIRE) when `redis` is given so every replica shares the budget. Routes
 * opt out with `config: { rateLimit: false }`. If Redis is unreachable requests are let through
 * (and logged) rather than failed.
 */
export async function registerRateLimit(app: FastifyInstance, opts: RateLimitOptions) {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: (request) => request.apiKey?.rateLimit ?? opts.max,
    timeWindow: opts.windowMs,
    keyGenerator: (request) => (request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`),
    ...(opts.redis ? { redis: opts.redis } : {}),
    nameSpace: opts.namespace ?? 'sluice-rate-limit:',
    skipOnError: true,
    errorResponseBuilder: (_request, context) => rateLimited(context.ttl / 1000, opts.contact),
  });
}

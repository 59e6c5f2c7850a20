import type { FastifyInstance } from 'fastify';
import type { ChainConfig } from '../../chains/chain-config.js';
import { ConfigError } from '../../errors/index.js';
import type { Reservation, UsageMeter } from '../../keys/usage-meter.js';
import type { ChainRegistry } from '../chain-selector.js';
import { quotaExceeded } from '../errors.js';
import { priceOf, requestUnits } from './prices.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Compute units reserved for this request (keyed routes). */
    computeUnits: Reservation | null;
  }
}

/**
 * Charges every keyed request of `scope` its compute units before its handler runs (after
 * authentication and the rate limit): reserved atomically against the key's quota, a 402 when
 * the quota would pass. Answers with a status of 400 or more give the units back (invalid
 * parameters, not found, server errors cost nothing). Every route of the scope must have a
 * price: registering one without fails at start.
 */
export function chargeComputeUnits(
  scope: FastifyInstance,
  opts: { meter: UsageMeter; registry: ChainRegistry<ChainConfig>; contact?: string },
): void {
  scope.decorateRequest('computeUnits', null);
  scope.addHook('onRoute', (route) => {
    if (!priceOf(route.url)) {
      throw new ConfigError(
        'computeUnits',
        `route ${route.method} ${route.url} has no compute-unit price (src/api/compute-units/prices.ts)`,
      );
    }
  });
  // Callback-style hooks: most requests are served from a lease without waiting for anything.
  scope.addHook('preHandler', (request, reply, done) => {
    const key = request.apiKey;
    const price = priceOf(request.routeOptions.url ?? '');
    if (!key || !price) return done();
    const units = requestUnits(price, request, opts.registry);
    const charged = (reservation: Reservation) => {
      request.computeUnits = reservation;
      reply.header('x-compute-units', String(units));
      done();
    };
    const held = opts.meter.reserveHeld(key, units);
    if (held) return charged(held);
    opts.meter.reserve(key, units).then((outcome) => {
      if (outcome.granted) return charged(outcome);
      const { quota, slot } = outcome;
      done(quotaExceeded(quota, slot.period, slot.periodEnd, opts.contact));
    }, done);
  });
  // Settled as the answer goes out (one hook: this runs on the hot path of every request). An
  // answer that costs nothing gives its units back and does not claim a price.
  scope.addHook('onSend', (request, reply, payload, done) => {
    const reservation = request.computeUnits;
    if (reservation) {
      request.computeUnits = null;
      const answered = reply.statusCode < 400;
      if (!answered) reply.removeHeader('x-compute-units');
      opts.meter.settle(reservation, answered);
    }
    done(null, payload);
  });
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TransactionalDb } from '../../store/subscriptions/webhook-row.js';
import { limitText } from '../../text/limit-text.js';
import { type KeyVerifier, requireApiKey } from '../auth.js';
import type { CursorCodec } from '../cursor.js';
import { ApiError } from '../errors.js';
import { webhookAddressesRoute } from '../routes/webhook-addresses.js';
import { webhooksRoute } from '../routes/webhooks.js';
import { createDeliveryUrlPolicy, type HostResolver } from './delivery-url-policy.js';

/** Largest body of a subscription request: 10,000 addresses fit with room for formatting. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Settings of the Subscriptions API. */
export interface SubscriptionServerOptions {
  /** WEBHOOK_ALLOW_HOSTS: delivery hosts exempt from the private-address refusal. */
  allowHosts?: readonly string[];
  /** Host name resolver of the URL check (default: the system's). */
  resolve?: HostResolver;
}

/**
 * JSON bodies (also sent as text/plain, as `fetch` does without a content type): a body that is
 * not JSON is a 422 in plain text like every other body error of these routes; an empty body is
 * no body (routes whose body is optional accept it).
 */
function parseJsonBody(
  _request: FastifyRequest,
  body: string | Buffer,
  done: (error: Error | null, value?: unknown) => void,
) {
  const text = body.toString();
  if (text.trim() === '') {
    done(null, undefined);
    return;
  }
  try {
    done(null, JSON.parse(text));
  } catch (error) {
    const reason = limitText((error as Error).message, 200);
    done(new ApiError('INVALID_BODY', `Failed to parse the request body as JSON: ${reason}`));
  }
}

/**
 * Registers the Subscriptions API under `/beta/evm/subscriptions` (the peer's paths): every
 * route needs an API key and costs no compute units; answers are never cached (a creation or
 * rotation answer holds a secret).
 */
export async function registerSubscriptions(
  app: FastifyInstance,
  opts: {
    db: TransactionalDb;
    verifier: KeyVerifier;
    cursors: CursorCodec;
    supportedChains: ReadonlySet<number>;
    options?: SubscriptionServerOptions | undefined;
  },
) {
  const ctx = {
    db: opts.db,
    cursors: opts.cursors,
    supportedChains: opts.supportedChains,
    checkUrl: createDeliveryUrlPolicy({
      allowHosts: opts.options?.allowHosts,
      resolve: opts.options?.resolve,
    }),
  };
  await app.register(
    async (scope) => {
      scope.removeContentTypeParser(['application/json', 'text/plain']);
      scope.addContentTypeParser(
        ['application/json', 'text/plain'],
        { parseAs: 'string', bodyLimit: MAX_BODY_BYTES },
        parseJsonBody,
      );
      scope.addHook('onRequest', requireApiKey(opts.verifier));
      scope.addHook('onSend', async (_request, reply) => {
        reply.header('cache-control', 'no-store');
      });
      await scope.register(webhooksRoute(ctx));
      await scope.register(webhookAddressesRoute(ctx));
    },
    { prefix: '/beta/evm/subscriptions' },
  );
}

import type { FastifyRequest } from 'fastify';
import type { TransactionalDb } from '../../store/subscriptions/webhook-row.js';
import type { CursorCodec } from '../cursor.js';
import { ApiError } from '../errors.js';
import type { DeliveryUrlPolicy } from './delivery-url-policy.js';

/** What the subscription routes need. */
export interface SubscriptionsContext {
  /** The primary: management reads and writes never go to a standby (read your own writes). */
  db: TransactionalDb;
  cursors: CursorCodec;
  /** Chain ids a webhook may filter on: served here or well known. */
  supportedChains: ReadonlySet<number>;
  checkUrl: DeliveryUrlPolicy;
}

/** The id of the request's API key (the auth hook ran): the owner of its webhooks. */
export function ownerOf(request: FastifyRequest): string {
  const key = request.apiKey;
  if (!key) throw new ApiError('UNAUTHORIZED');
  return key.id;
}

/** The 404 for an id that is unknown or belongs to another key (indistinguishable on purpose). */
export function webhookNotFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', `Webhook ${id} not found`);
}

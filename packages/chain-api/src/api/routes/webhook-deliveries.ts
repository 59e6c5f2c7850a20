import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requeueDelivery } from '../../store/subscriptions/delivery-queue.js';
import type { ApiContext } from '../context.js';
import { ApiError, invalidParameter } from '../errors.js';
import { limitParam } from '../params/number-params.js';
import {
  type DeliveryLogRow,
  selectDeliveries,
  webhookOwner,
} from '../queries/webhook-deliveries-query.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const limitSpec = limitParam({ min: 1, max: 100, fallback: 50 });

const iso = (value: Date | string | null) =>
  value === null ? null : new Date(value).toISOString();

function uuidParam(value: unknown, name: string): string {
  if (typeof value !== 'string' || !UUID.test(value))
    throw invalidParameter(name, 'expected a UUID');
  return value.toLowerCase();
}

/** The webhook of the path, owned by the request's key: 404 for another key's or none. */
async function ownedWebhook(ctx: ApiContext, request: FastifyRequest): Promise<string> {
  const params = request.params as Record<string, unknown>;
  const id = uuidParam(params.webhookId, 'webhookId');
  const owner = await webhookOwner(ctx.writeDb, id);
  // Another key's webhook is answered exactly like a missing one (no existence oracle).
  if (owner === undefined || owner !== request.apiKey?.id) {
    throw new ApiError('NOT_FOUND', 'webhook not found');
  }
  return id;
}

function shapeDelivery(row: DeliveryLogRow): Record<string, unknown> {
  return {
    id: row.id,
    chain_id: Number(row.chain_id),
    block_number: Number(row.block_number),
    block_hash: row.block_hash,
    removed: row.removal,
    items: row.item_count,
    status: row.status,
    attempts: row.attempts,
    last_response_status: row.last_status,
    last_error: row.last_error,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    created_at: iso(row.created_at),
    first_sent_at: iso(row.first_sent_at),
    delivered_at: iso(row.delivered_at),
  };
}

/**
 * The delivery log of a webhook (`GET /beta/evm/subscriptions/webhooks/{webhookId}/deliveries`, newest
 * first, paged by `limit` / `offset` / `next_offset`) and redelivery (`POST
 * .../deliveries/{deliveryId}/redeliver`: a delivered or failed delivery goes out again with the
 * same delivery id). Both read and write the primary (the log must show what just happened).
 */
export function webhookDeliveriesRoute(ctx: ApiContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/subscriptions/webhooks/:webhookId/deliveries',
      {
        schema: {
          tags: ['subscriptions'],
          summary: 'Delivery log of a webhook',
          operationId: 'listWebhookDeliveries',
        },
      },
      async (request, reply) => {
        const id = await ownedWebhook(ctx, request);
        const query = request.query as Record<string, string | undefined>;
        const limit = limitSpec.parse(query.limit, 'limit');
        const rawOffset = query.offset ?? '0';
        if (!/^\d{1,9}$/.test(rawOffset)) {
          throw invalidParameter('offset', 'expected a non-negative integer');
        }
        const offset = Number(rawOffset);
        const rows = await selectDeliveries(ctx.writeDb, id, limit, offset);
        const page = rows.slice(0, limit);
        reply.header('cache-control', 'no-store');
        return {
          deliveries: page.map(shapeDelivery),
          next_offset: rows.length > limit ? offset + limit : null,
        };
      },
    );
    app.post(
      '/subscriptions/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
      {
        schema: {
          tags: ['subscriptions'],
          summary: 'Send a delivery again',
          operationId: 'redeliverWebhookDelivery',
        },
      },
      async (request, reply) => {
        const id = await ownedWebhook(ctx, request);
        const deliveryId = uuidParam(
          (request.params as Record<string, unknown>).deliveryId,
          'deliveryId',
        );
        if (!(await requeueDelivery(ctx.writeDb, id, deliveryId))) {
          throw new ApiError('NOT_FOUND', 'no delivered or failed delivery with that id');
        }
        return reply.code(202).send({ id: deliveryId, status: 'pending' });
      },
    );
  };
}

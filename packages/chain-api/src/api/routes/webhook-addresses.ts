import type { FastifyInstance } from 'fastify';
import {
  changeWebhookAddresses,
  replaceWebhookAddresses,
} from '../../store/subscriptions/webhook-address-writes.js';
import { cursorParam } from '../cursor.js';
import { limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { selectWebhook, selectWebhookAddresses } from '../queries/webhooks-query.js';
import {
  addressesListSchema,
  noBody,
  replaceAddressesBodySchema,
  updateAddressesBodySchema,
  webhookErrorResponses,
  webhookIdParams,
} from '../schemas/webhook-schemas.js';
import { invalidField } from '../subscriptions/body-fields.js';
import {
  ownerOf,
  type SubscriptionsContext,
  webhookNotFound,
} from '../subscriptions/subscriptions-context.js';
import {
  MAX_WEBHOOK_ADDRESSES,
  parseChangeAddresses,
  parseReplaceAddresses,
} from '../subscriptions/webhook-body.js';
import { parseWebhookId } from '../subscriptions/webhook-ids.js';

const pageQuery = defineParams({
  limit: limitParam({ min: 1, max: MAX_WEBHOOK_ADDRESSES, fallback: 100 }),
  offset: cursorParam,
});

const ADDRESS = /^0x[0-9a-f]{40}$/;
const tags = ['subscriptions'];
const config = { errorFormat: 'text' as const };

/**
 * `/beta/evm/subscriptions/webhooks/{webhookId}/addresses`: the paged list (GET), replacing it
 * (PUT) and adding/removing addresses (PATCH), at most 10,000 per webhook.
 */
export function webhookAddressesRoute(ctx: SubscriptionsContext) {
  return async (app: FastifyInstance) => {
    app.get(
      '/webhooks/:webhookId/addresses',
      {
        config,
        schema: {
          tags,
          summary: 'Get webhook addresses',
          description:
            'The watched addresses (lower-case) in address order; keyset-paged with `limit` (default 100, at most 10,000) and `next_offset`.',
          operationId: 'getWebhookAddresses',
          params: webhookIdParams,
          querystring: pageQuery.schema,
          response: { 200: addressesListSchema, ...webhookErrorResponses({ id: true }) },
        },
      },
      async (request) => {
        const id = parseWebhookId(request.params);
        const query = pageQuery.parse(request.query);
        const scope = `webhook-addresses|${id}`;
        let after: string | undefined;
        if (query.offset) {
          const key = ctx.cursors.decode(scope, query.offset);
          if (key.length !== 1 || typeof key[0] !== 'string' || !ADDRESS.test(key[0])) {
            throw ctx.cursors.invalid();
          }
          after = key[0];
        }
        if (!(await selectWebhook(ctx.db, id, ownerOf(request)))) throw webhookNotFound(id);
        const page = await selectWebhookAddresses(ctx.db, id, after, query.limit);
        const last = page.addresses.at(-1);
        return {
          addresses: page.addresses,
          ...(page.more && last ? { next_offset: ctx.cursors.encode(scope, [last]) } : {}),
        };
      },
    );

    app.put(
      '/webhooks/:webhookId/addresses',
      {
        config,
        schema: {
          tags,
          summary: 'Replace webhook addresses',
          description: `Makes \`addresses\` (at most ${MAX_WEBHOOK_ADDRESSES}, any case, duplicates ignored) the complete list. 200 with no body.`,
          operationId: 'replaceWebhookAddresses',
          params: webhookIdParams,
          body: replaceAddressesBodySchema,
          response: {
            200: noBody('Addresses replaced. No response body.'),
            ...webhookErrorResponses({ id: true, body: true }),
          },
        },
      },
      async (request, reply) => {
        const id = parseWebhookId(request.params);
        const addresses = parseReplaceAddresses(request.body);
        const result = await replaceWebhookAddresses(ctx.db, id, ownerOf(request), addresses);
        if (result.status === 'not-found') throw webhookNotFound(id);
        return reply.code(200).send();
      },
    );

    app.patch(
      '/webhooks/:webhookId/addresses',
      {
        config,
        schema: {
          tags,
          summary: 'Update webhook addresses',
          description: `Removes \`remove_addresses\` and adds \`add_addresses\` (an address in both is a 422); the list may not exceed ${MAX_WEBHOOK_ADDRESSES} addresses (422, nothing changed). 200 with no body.`,
          operationId: 'updateWebhookAddresses',
          params: webhookIdParams,
          body: updateAddressesBodySchema,
          response: {
            200: noBody('Addresses updated. No response body.'),
            ...webhookErrorResponses({ id: true, body: true }),
          },
        },
      },
      async (request, reply) => {
        const id = parseWebhookId(request.params);
        const change = parseChangeAddresses(request.body);
        const result = await changeWebhookAddresses(
          ctx.db,
          id,
          ownerOf(request),
          change,
          MAX_WEBHOOK_ADDRESSES,
        );
        if (result.status === 'not-found') throw webhookNotFound(id);
        if (result.status === 'over-cap') {
          throw invalidField(
            'add_addresses',
            `the webhook would watch ${result.count} addresses; at most ${MAX_WEBHOOK_ADDRESSES} per webhook`,
          );
        }
        return reply.code(200).send();
      },
    );
  };
}

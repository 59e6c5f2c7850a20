import type { FastifyInstance } from 'fastify';
import {
  deleteWebhook,
  insertWebhook,
  rotateWebhookSecret,
  updateWebhook,
} from '../../store/subscriptions/webhook-writes.js';
import { cursorParam } from '../cursor.js';
import { limitParam } from '../params/number-params.js';
import { defineParams } from '../params/param-spec.js';
import { selectWebhook, selectWebhooks, type WebhookPageKey } from '../queries/webhooks-query.js';
import {
  createdWebhookSchema,
  createWebhookBodySchema,
  noBody,
  rotatedSecretSchema,
  rotateSecretBodySchema,
  updateWebhookBodySchema,
  webhookErrorResponses,
  webhookIdParams,
  webhookSchema,
  webhooksListSchema,
} from '../schemas/webhook-schemas.js';
import { invalidField } from '../subscriptions/body-fields.js';
import {
  ownerOf,
  type SubscriptionsContext,
  webhookNotFound,
} from '../subscriptions/subscriptions-context.js';
import {
  parseCreateWebhook,
  parseRotateSecret,
  parseUpdateWebhook,
} from '../subscriptions/webhook-body.js';
import { newWebhookId, newWebhookSecret, parseWebhookId } from '../subscriptions/webhook-ids.js';
import { webhookJson } from '../subscriptions/webhook-shape.js';

const listQuery = defineParams({
  limit: limitParam({ min: 1, max: 1_000, fallback: 100 }),
  offset: cursorParam,
});

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isPageKey(key: readonly (string | number)[]): key is WebhookPageKey {
  return (
    key.length === 2 &&
    typeof key[0] === 'string' &&
    TIME.test(key[0]) &&
    typeof key[1] === 'string' &&
    ID.test(key[1])
  );
}

const tags = ['subscriptions'];
const config = { errorFormat: 'text' as const };

/**
 * `/beta/evm/subscriptions/webhooks` and `/webhooks/{webhookId}`: create, list, get, update,
 * delete (the peer's operations) and secret rotation (ours). Every statement is scoped to the
 * request's API key, so another key's webhook is a 404 like an unknown id.
 */
export function webhooksRoute(ctx: SubscriptionsContext) {
  return async (app: FastifyInstance) => {
    app.post(
      '/webhooks',
      {
        config,
        schema: {
          tags,
          summary: 'Create a webhook',
          description:
            'Creates a webhook subscription owned by the calling API key. The answer holds the signing `secret` (`whsec_…`): shown only here and by rotation. The `url` must be http(s) and must not point at a private, loopback, link-local or metadata address (WEBHOOK_ALLOW_HOSTS exempts hosts). Free of compute units.',
          operationId: 'createWebhook',
          body: createWebhookBodySchema,
          response: { 200: createdWebhookSchema, ...webhookErrorResponses({ body: true }) },
        },
      },
      async (request) => {
        const keyId = ownerOf(request);
        const input = parseCreateWebhook(request.body, ctx.supportedChains);
        const refused = await ctx.checkUrl(input.url);
        if (refused) throw invalidField('url', refused);
        const secret = input.secret ?? newWebhookSecret();
        const row = await insertWebhook(ctx.db, { ...input, id: newWebhookId(), keyId, secret });
        return { ...webhookJson(row), secret };
      },
    );

    app.get(
      '/webhooks',
      {
        config,
        schema: {
          tags,
          summary: 'List webhooks',
          description:
            "The calling API key's webhooks, oldest first; keyset-paged with `limit` and `next_offset` (pass it as `offset`).",
          operationId: 'listWebhooks',
          querystring: listQuery.schema,
          response: { 200: webhooksListSchema, ...webhookErrorResponses({}) },
        },
      },
      async (request) => {
        const keyId = ownerOf(request);
        const query = listQuery.parse(request.query);
        const scope = `webhooks|${keyId}`;
        let after: WebhookPageKey | undefined;
        if (query.offset) {
          const key = ctx.cursors.decode(scope, query.offset);
          if (!isPageKey(key)) throw ctx.cursors.invalid();
          after = key;
        }
        const { rows, more } = await selectWebhooks(ctx.db, keyId, after, query.limit);
        const last = rows.at(-1);
        return {
          webhooks: rows.map(webhookJson),
          ...(more && last
            ? { next_offset: ctx.cursors.encode(scope, [last.createdAt, last.id]) }
            : {}),
        };
      },
    );

    app.get(
      '/webhooks/:webhookId',
      {
        config,
        schema: {
          tags,
          summary: 'Get a webhook',
          description:
            'One webhook of the calling API key (404 for an unknown id or another key’s webhook). The secret is never shown here.',
          operationId: 'getWebhook',
          params: webhookIdParams,
          response: { 200: webhookSchema, ...webhookErrorResponses({ id: true }) },
        },
      },
      async (request) => {
        const id = parseWebhookId(request.params);
        const row = await selectWebhook(ctx.db, id, ownerOf(request));
        if (!row) throw webhookNotFound(id);
        return webhookJson(row);
      },
    );

    app.patch(
      '/webhooks/:webhookId',
      {
        config,
        schema: {
          tags,
          summary: 'Update a webhook',
          description:
            'Changes the given fields (name, url, active, filters, confirmations); absent fields keep their value, a null filter removes it. `active: false` pauses deliveries, `active: true` resumes them (and clears `disabled_reason`). Addresses change through `/addresses`. A filter the type cannot have is a 422.',
          operationId: 'updateWebhook',
          params: webhookIdParams,
          body: updateWebhookBodySchema,
          response: { 200: webhookSchema, ...webhookErrorResponses({ id: true, body: true }) },
        },
      },
      async (request) => {
        const id = parseWebhookId(request.params);
        const keyId = ownerOf(request);
        const current = await selectWebhook(ctx.db, id, keyId);
        if (!current) throw webhookNotFound(id);
        const changes = parseUpdateWebhook(request.body, current.type, ctx.supportedChains);
        if (changes.url !== undefined) {
          const refused = await ctx.checkUrl(changes.url);
          if (refused) throw invalidField('url', refused);
        }
        if (Object.keys(changes).length === 0) return webhookJson(current);
        const row = await updateWebhook(ctx.db, id, keyId, changes);
        if (!row) throw webhookNotFound(id);
        return webhookJson(row);
      },
    );

    app.delete(
      '/webhooks/:webhookId',
      {
        config,
        schema: {
          tags,
          summary: 'Delete a webhook',
          description: 'Deletes the webhook and its address list for good. 200 with no body.',
          operationId: 'deleteWebhook',
          params: webhookIdParams,
          response: {
            200: noBody('Deleted. No response body.'),
            ...webhookErrorResponses({ id: true }),
          },
        },
      },
      async (request, reply) => {
        const id = parseWebhookId(request.params);
        if (!(await deleteWebhook(ctx.db, id, ownerOf(request)))) throw webhookNotFound(id);
        return reply.code(200).send();
      },
    );

    app.post(
      '/webhooks/:webhookId/secret/rotate',
      {
        config,
        schema: {
          tags,
          summary: 'Rotate the signing secret',
          description:
            'Sluice extension. Issues a new signing secret, shown only in this answer; deliveries also carry `dune-webhook-signature-previous`, made with the previous secret, for `grace_period_seconds` (default 24 h, 0 to 7 days) so receivers can switch without losing any.',
          operationId: 'rotateWebhookSecret',
          params: webhookIdParams,
          body: rotateSecretBodySchema,
          response: {
            200: rotatedSecretSchema,
            ...webhookErrorResponses({ id: true, body: true }),
          },
        },
      },
      async (request) => {
        const id = parseWebhookId(request.params);
        const { graceMs } = parseRotateSecret(request.body);
        const secret = newWebhookSecret();
        const rotated = await rotateWebhookSecret(ctx.db, id, ownerOf(request), secret, graceMs);
        if (!rotated) throw webhookNotFound(id);
        return { id, secret, previous_secret_expires_at: rotated.previousSecretExpiresAt };
      },
    );
  };
}

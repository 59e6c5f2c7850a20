import type { JsonSchema } from '../params/param-spec.js';
import {
  ACTIVITY_TYPES,
  ASSET_TYPES,
  MAX_CONFIRMATIONS,
  MAX_GRACE_SECONDS,
  MAX_WEBHOOK_ADDRESSES,
  TRANSACTION_TYPES,
  WEBHOOK_TYPES,
} from '../subscriptions/webhook-body.js';
import { gatewayErrorSchema, nextOffsetSchema, textErrorSchema } from './common-schemas.js';

/**
 * Schemas of the Subscriptions API (the peer's `Webhook`, `CreateWebhook`, `UpdateWebhook`,
 * `AddressesList`, `ReplaceAddresses`, `UpdateAddresses`, plus our extensions): they serialize
 * responses and document /openapi.json. Bodies are checked by `webhook-body.ts`, not by these.
 */

const address = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^0x[a-fA-F0-9]{40}$',
  description,
});
const chainIds: JsonSchema = {
  type: 'array',
  items: { type: 'integer' },
  nullable: true,
  description:
    'Chain ids to deliver events of; null or omitted: every supported chain. Each must be a supported chain (served here or well known).',
};
const filters: Record<string, JsonSchema> = {
  chain_ids: chainIds,
  transaction_type: {
    type: 'string',
    enum: [...TRANSACTION_TYPES],
    nullable: true,
    description: "Only for `transactions` webhooks: the watched address's side.",
  },
  counterparty: {
    ...address('Only for `transactions` webhooks: the other side of the transaction.'),
    nullable: true,
  },
  activity_type: {
    type: 'string',
    enum: [...ACTIVITY_TYPES],
    nullable: true,
    description: 'Only for `activities` webhooks.',
  },
  asset_type: { type: 'string', enum: [...ASSET_TYPES], nullable: true },
  token_address: { ...address('Only events of this token.'), nullable: true },
  confirmations: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_CONFIRMATIONS,
    description:
      'Sluice extension: blocks an event waits on top of its own before delivery (default 0: delivered at once, a reorg may replace it).',
  },
};

export const webhookSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'team_id', 'name', 'type', 'url', 'active', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    team_id: { type: 'string', description: 'Owner: the id of the API key that created it.' },
    name: { type: 'string' },
    type: { type: 'string', enum: [...WEBHOOK_TYPES] },
    url: { type: 'string', format: 'uri' },
    active: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    ...filters,
    disabled_reason: {
      type: 'string',
      description: 'Sluice extension: why deliveries stopped (present only when they did).',
    },
  },
};

/** Create's answer: the webhook and, this once, its signing secret. */
export const createdWebhookSchema: JsonSchema = {
  ...webhookSchema,
  required: [...(webhookSchema.required as string[]), 'secret'],
  properties: {
    ...(webhookSchema.properties as Record<string, JsonSchema>),
    secret: {
      type: 'string',
      description:
        'Sluice extension: the signing secret (`whsec_…`), shown only here and by rotation. Deliveries carry `dune-webhook-signature: sha256=<hex HMAC-SHA256 of the body>`.',
    },
  },
};

export const webhooksListSchema: JsonSchema = {
  type: 'object',
  required: ['webhooks'],
  properties: { webhooks: { type: 'array', items: webhookSchema }, next_offset: nextOffsetSchema },
};

export const addressesListSchema: JsonSchema = {
  type: 'object',
  required: ['addresses'],
  properties: {
    addresses: { type: 'array', items: { type: 'string' }, description: 'Lower-case.' },
    next_offset: nextOffsetSchema,
  },
};

export const rotatedSecretSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'secret'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    secret: { type: 'string', description: 'The new signing secret, shown only here.' },
    previous_secret_expires_at: {
      type: 'string',
      format: 'date-time',
      nullable: true,
      description: 'Until when deliveries are also signed with the previous secret.',
    },
  },
};

const addressList = (description: string): JsonSchema => ({
  type: 'array',
  items: address('EVM address (any case; stored lower-case).'),
  maxItems: MAX_WEBHOOK_ADDRESSES,
  description,
});

export const createWebhookBodySchema: JsonSchema = {
  type: 'object',
  required: ['name', 'url', 'type', 'addresses'],
  properties: {
    name: { type: 'string' },
    url: {
      type: 'string',
      format: 'uri',
      description: 'http(s); private, loopback and link-local targets are refused.',
    },
    type: { type: 'string', enum: [...WEBHOOK_TYPES] },
    addresses: addressList(`Addresses to watch, at most ${MAX_WEBHOOK_ADDRESSES}.`),
    ...filters,
  },
};

export const updateWebhookBodySchema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', nullable: true },
    url: { type: 'string', format: 'uri', nullable: true },
    active: { type: 'boolean', nullable: true },
    ...filters,
  },
};

export const replaceAddressesBodySchema: JsonSchema = {
  type: 'object',
  required: ['addresses'],
  properties: { addresses: addressList('The new complete list.') },
};

export const updateAddressesBodySchema: JsonSchema = {
  type: 'object',
  properties: {
    add_addresses: addressList('Addresses to add.'),
    remove_addresses: addressList('Addresses to remove.'),
  },
};

export const rotateSecretBodySchema: JsonSchema = {
  type: 'object',
  properties: {
    grace_period_seconds: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_GRACE_SECONDS,
      default: 86_400,
      description: 'How long the previous secret keeps signing deliveries too (default 24 h).',
    },
  },
};

export const webhookIdParams: JsonSchema = {
  type: 'object',
  required: ['webhookId'],
  properties: { webhookId: { type: 'string', format: 'uuid' } },
};

const text = (description: string) => ({
  description,
  content: { 'text/plain': { schema: textErrorSchema } },
});
const gateway = (description: string) => ({
  description,
  content: { 'application/json': { schema: gatewayErrorSchema } },
});
export const noBody = (description: string): JsonSchema => ({ description, type: 'null' });

/** Error answers of the subscription routes. */
export function webhookErrorResponses(opts: { id?: boolean; body?: boolean }) {
  return {
    400: text('Malformed webhook id or query parameter; the message names it.'),
    401: gateway('Missing or invalid API key.'),
    ...(opts.id ? { 404: text('No webhook with this id belongs to this API key.') } : {}),
    ...(opts.body
      ? {
          413: text('Body larger than 2 MiB.'),
          415: text('Body is not `application/json`.'),
          422: text('Invalid body; the message names the field.'),
        }
      : {}),
    429: gateway('Rate limit exceeded; see the Retry-After header.'),
  };
}

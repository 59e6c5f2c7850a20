import type { WebhookFilters, WebhookType } from '../../store/subscriptions/webhook-row.js';
import type { WebhookChanges } from '../../store/subscriptions/webhook-writes.js';
import { ApiError } from '../errors.js';
import {
  addressField,
  addressListField,
  type Body,
  booleanField,
  choiceField,
  integerField,
  integerListField,
  invalidField,
  objectBody,
  requireField,
  stringField,
} from './body-fields.js';

/** Addresses one webhook watches at most. */
export const MAX_WEBHOOK_ADDRESSES = 10_000;
/** Most confirmations a webhook may wait for before a delivery. */
export const MAX_CONFIRMATIONS = 1_000;
export const MAX_NAME_LENGTH = 256;

export const WEBHOOK_TYPES = ['transactions', 'activities', 'balances'] as const;
export const TRANSACTION_TYPES = ['sender', 'receiver'] as const;
export const ACTIVITY_TYPES = [
  'approve',
  'mint',
  'burn',
  'receive',
  'send',
  'swap',
  'call',
] as const;
export const ASSET_TYPES = ['native', 'erc20', 'erc721', 'erc1155'] as const;

/** Filters only one type may carry (the others apply to every type). */
const TYPE_ONLY: Record<string, WebhookType> = {
  transaction_type: 'transactions',
  counterparty: 'transactions',
  activity_type: 'activities',
};

/** A validated create body (the URL still to be checked against the SSRF policy). */
export interface CreateWebhookInput extends WebhookFilters {
  name: string;
  url: string;
  type: WebhookType;
  active: boolean;
  confirmations: number;
  addresses: string[];
  /** A signing secret the caller chose (ours: for receivers configured ahead); else generated. */
  secret?: string;
}

/** `secret` (optional, ours): 24 to 256 visible ASCII characters. */
function secretField(body: Body): string | undefined {
  const secret = stringField(body, 'secret', { maxLength: 256, nullable: true });
  if (secret === null || secret === undefined) return undefined;
  if (!/^[\x21-\x7e]{24,256}$/.test(secret)) {
    throw invalidField('secret', 'expected 24 to 256 visible ASCII characters');
  }
  return secret;
}

/** `name`; with `nullable` (PATCH) a null one is no change. */
function nameField(body: Body, nullable = false): string | undefined {
  const name = stringField(body, 'name', { maxLength: MAX_NAME_LENGTH, nullable });
  if (typeof name === 'string' && name.trim() === '') throw invalidField('name', 'empty');
  return name ?? undefined;
}

function urlField(body: Body, nullable = false): string | undefined {
  const url = stringField(body, 'url', { nullable });
  if (typeof url === 'string' && /\s/.test(url)) throw invalidField('url', 'contains whitespace');
  return url ?? undefined;
}

/** `chain_ids`: distinct ids in ascending order, each a supported chain; null: every chain. */
function chainIdsField(body: Body, supported: ReadonlySet<number>): number[] | null | undefined {
  const ids = integerListField(body, 'chain_ids');
  if (ids === undefined || ids === null) return ids;
  if (ids.length === 0) {
    throw invalidField('chain_ids', 'empty; omit it or pass null for every supported chain');
  }
  ids.forEach((id, i) => {
    if (!supported.has(id)) {
      throw invalidField(
        `chain_ids[${i}]`,
        `chain ${id} is not supported (see /v1/evm/supported-chains)`,
      );
    }
  });
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** The filters present in `body`: undefined when absent, null when given as null. */
function filterFields(body: Body, supported: ReadonlySet<number>) {
  return {
    chainIds: chainIdsField(body, supported),
    transactionType: choiceField(body, 'transaction_type', TRANSACTION_TYPES, { nullable: true }),
    counterparty: addressField(body, 'counterparty'),
    activityType: choiceField(body, 'activity_type', ACTIVITY_TYPES, { nullable: true }),
    assetType: choiceField(body, 'asset_type', ASSET_TYPES, { nullable: true }),
    tokenAddress: addressField(body, 'token_address'),
  };
}

/**
 * Refuses a filter that `type` cannot have (the peer's wording): 422 at creation, 400 on update,
 * as the peer's OpenAPI documents each.
 */
function checkTypeFilters(
  body: Body,
  type: WebhookType,
  code: 'INVALID_BODY' | 'INVALID_PARAMETER',
): void {
  for (const [field, only] of Object.entries(TYPE_ONLY)) {
    const value = body[field];
    if (value !== undefined && value !== null && type !== only) {
      throw new ApiError(code, `Webhook type ${type} cannot have ${field}`);
    }
  }
}

/**
 * Validates a create body: `name`, `url`, `type` and `addresses` required; filters checked
 * against the type; `chain_ids` against the supported chains; addresses lower-cased and distinct.
 *
 * @example
 * parseCreateWebhook({ name: 'n', url: 'https://x.io/h', type: 'balances', addresses: [] }, ids);
 */
export function parseCreateWebhook(
  raw: unknown,
  supportedChains: ReadonlySet<number>,
): CreateWebhookInput {
  const body = objectBody(raw);
  for (const field of ['name', 'url', 'type', 'addresses']) requireField(body, field);
  const name = nameField(body) as string;
  const url = urlField(body) as string;
  const type = choiceField(body, 'type', WEBHOOK_TYPES) as WebhookType;
  const addresses = addressListField(body, 'addresses', MAX_WEBHOOK_ADDRESSES);
  if (addresses === undefined) throw invalidField('addresses', 'expected an array, got null');
  const filters = filterFields(body, supportedChains);
  checkTypeFilters(body, type, 'INVALID_BODY');
  const secret = secretField(body);
  return {
    name,
    url,
    type,
    active: booleanField(body, 'active') ?? true,
    confirmations: integerField(body, 'confirmations', 0, MAX_CONFIRMATIONS) ?? 0,
    addresses,
    ...(secret !== undefined ? { secret } : {}),
    chainIds: filters.chainIds ?? null,
    transactionType: filters.transactionType ?? null,
    counterparty: filters.counterparty ?? null,
    activityType: filters.activityType ?? null,
    assetType: filters.assetType ?? null,
    tokenAddress: filters.tokenAddress ?? null,
  };
}

/**
 * Validates a PATCH body against the webhook's type. Absent fields (and null `name`, `url`,
 * `active`) keep their value; a null filter clears it; null `confirmations` resets it to 0.
 *
 * @example
 * parseUpdateWebhook({ active: false }, 'balances', ids); // { active: false }
 */
export function parseUpdateWebhook(
  raw: unknown,
  type: WebhookType,
  supportedChains: ReadonlySet<number>,
): WebhookChanges {
  const body = objectBody(raw, true);
  if (body.addresses !== undefined) {
    throw invalidField(
      'addresses',
      'not changed here; use PUT or PATCH /beta/evm/subscriptions/webhooks/{webhookId}/addresses',
    );
  }
  const newType = choiceField(body, 'type', WEBHOOK_TYPES, { nullable: true });
  if (newType && newType !== type) {
    throw invalidField('type', `a webhook's type cannot change (this one is ${type})`);
  }
  const changes: WebhookChanges = {};
  const name = nameField(body, true);
  if (name !== undefined) changes.name = name;
  const url = urlField(body, true);
  if (url !== undefined) changes.url = url;
  const active = booleanField(body, 'active');
  if (active !== undefined) changes.active = active;
  const confirmations = integerField(body, 'confirmations', 0, MAX_CONFIRMATIONS);
  if (confirmations !== undefined) changes.confirmations = confirmations ?? 0;
  const filters = filterFields(body, supportedChains);
  checkTypeFilters(body, type, 'INVALID_PARAMETER');
  for (const [field, value] of Object.entries(filters)) {
    if (value !== undefined) (changes as Record<string, unknown>)[field] = value;
  }
  return changes;
}

/** A PUT body: the complete new list. */
export function parseReplaceAddresses(raw: unknown): string[] {
  const body = objectBody(raw);
  requireField(body, 'addresses');
  const addresses = addressListField(body, 'addresses', MAX_WEBHOOK_ADDRESSES);
  if (addresses === undefined) throw invalidField('addresses', 'expected an array, got null');
  return addresses;
}

/** A PATCH addresses body: what to add and what to remove (an address may not be in both). */
export function parseChangeAddresses(raw: unknown): { add: string[]; remove: string[] } {
  const body = objectBody(raw);
  const add = addressListField(body, 'add_addresses', MAX_WEBHOOK_ADDRESSES) ?? [];
  // Removing more than the cap cannot match more than the list holds; bound the work anyway.
  const remove = addressListField(body, 'remove_addresses', MAX_WEBHOOK_ADDRESSES) ?? [];
  const removing = new Set(remove);
  const both = add.find((address) => removing.has(address));
  if (both !== undefined) {
    throw invalidField('add_addresses', `${both} is also in remove_addresses`);
  }
  return { add, remove };
}

/** Longest grace period a rotation may give the previous secret: 7 days. */
export const MAX_GRACE_SECONDS = 7 * 86_400;
export const DEFAULT_GRACE_SECONDS = 86_400;

/** A rotation body (optional): `grace_period_seconds`, 0 to 7 days, default 24 h. */
export function parseRotateSecret(raw: unknown): { graceMs: number } {
  const body = objectBody(raw, true);
  const grace = integerField(body, 'grace_period_seconds', 0, MAX_GRACE_SECONDS);
  return { graceMs: (grace ?? DEFAULT_GRACE_SECONDS) * 1000 };
}

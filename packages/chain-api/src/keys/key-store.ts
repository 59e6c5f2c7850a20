import { randomBytes } from 'node:crypto';
import type { Queryable } from '@sluice/db';
import type { UsagePeriod } from '../store/api/api-key-usage.js';
import {
  type ApiKeyRow,
  apiKeyColumns,
  insertApiKey,
  revokeApiKey,
  updateApiKeyQuota,
} from '../store/api/api-keys.js';
import { generateApiKey, hashApiKey, keyHint } from './api-key-format.js';

/** An API key as stored: never the key itself, only its hash and a short hint. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  hint: string;
  /** Requests per rate-limit window for this key; null means the server default. */
  rateLimit: number | null;
  /** Compute units per `cuPeriod`; null means unlimited. */
  cuQuota: number | null;
  cuPeriod: UsagePeriod;
  createdAt: string;
  revokedAt: string | null;
}

/** Internal: what authentication needs to confirm a presented key. */
export interface ActiveKey {
  id: string;
  hash: string;
  rateLimit: number | null;
  cuQuota: number | null;
  cuPeriod: UsagePeriod;
}

type KeyRow = ApiKeyRow;

const toIso = (value: Date | string): string => new Date(value).toISOString();

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    hint: row.key_hint,
    rateLimit: row.rate_limit,
    cuQuota: row.cu_quota === null ? null : Number(row.cu_quota),
    cuPeriod: row.cu_period,
    createdAt: toIso(row.created_at),
    revokedAt: row.revoked_at === null ? null : toIso(row.revoked_at),
  };
}

export interface KeyStore {
  /** Creates a key; the plaintext is returned here once and never stored. */
  create(opts: {
    name: string;
    rateLimit?: number | null;
    cuQuota?: number | null;
    cuPeriod?: UsagePeriod;
  }): Promise<{ key: string; record: ApiKeyRecord }>;
  /** Changes an active key's quota or period; undefined when no active key has this id. */
  updateQuota(
    id: string,
    change: { cuQuota?: number | null; cuPeriod?: UsagePeriod },
  ): Promise<ApiKeyRecord | undefined>;
  list(opts?: { includeRevoked?: boolean }): Promise<ApiKeyRecord[]>;
  /** Revokes by id; false when no active key has that id. */
  revoke(id: string): Promise<boolean>;
  /** Stores development keys given in plaintext (API_KEYS), idempotently. */
  seed(keys: readonly string[], name?: string): Promise<void>;
  /** The active key with this SHA-256 hash, if any. */
  findActiveByHash(hash: string): Promise<ActiveKey | undefined>;
}

/**
 * Hashed API keys in the `api_keys` table.
 *
 * @example
 * const { key } = await createKeyStore(db).create({ name: 'my app' });
 */
export function createKeyStore(db: Queryable): KeyStore {
  const insert = async (
    key: string,
    name: string,
    limits: { rateLimit: number | null; cuQuota?: number | null; cuPeriod?: UsagePeriod },
  ) => {
    const id = `key_${randomBytes(6).toString('hex')}`;
    return toRecord(
      await insertApiKey(db, { id, name, hash: hashApiKey(key), hint: keyHint(key), ...limits }),
    );
  };

  return {
    async create({ name, rateLimit = null, cuQuota = null, cuPeriod = 'month' }) {
      const key = generateApiKey();
      return { key, record: await insert(key, name, { rateLimit, cuQuota, cuPeriod }) };
    },
    async updateQuota(id, change) {
      const row = await updateApiKeyQuota(db, id, change);
      return row && toRecord(row);
    },
    async list({ includeRevoked = false } = {}) {
      const { rows } = await db.query<KeyRow>(
        `select ${apiKeyColumns} from api_keys
         where $1 or revoked_at is null order by created_at, id`,
        [includeRevoked],
      );
      return rows.map(toRecord);
    },
    async revoke(id) {
      return revokeApiKey(db, id);
    },
    async seed(keys, name = 'API_KEYS') {
      for (const key of keys) await insert(key, name, { rateLimit: null });
    },
    async findActiveByHash(hash) {
      const { rows } = await db.query<{
        id: string;
        key_hash: string;
        rate_limit: number | null;
        cu_quota: string | number | null;
        cu_period: UsagePeriod;
      }>(
        `select id, key_hash, rate_limit, cu_quota, cu_period from api_keys
         where key_hash = $1 and revoked_at is null`,
        [hash],
      );
      const row = rows[0];
      return (
        row && {
          id: row.id,
          hash: row.key_hash,
          rateLimit: row.rate_limit,
          cuQuota: row.cu_quota === null ? null : Number(row.cu_quota),
          cuPeriod: row.cu_period,
        }
      );
    },
  };
}

/**
 * Key lookups for an API reading from standbys: `reads` first (no load on the primary for the
 * keys in use), and on a miss `primary`, where keys are created: a key made a moment ago works
 * even while the standbys have not replayed it yet.
 *
 * @example
 * const verifyFrom = keysReadThenPrimary(createKeyStore(router), createKeyStore(primary));
 */
export function keysReadThenPrimary(
  reads: Pick<KeyStore, 'findActiveByHash'>,
  primary: Pick<KeyStore, 'findActiveByHash'>,
): Pick<KeyStore, 'findActiveByHash'> {
  return {
    async findActiveByHash(hash) {
      return (await reads.findActiveByHash(hash)) ?? primary.findActiveByHash(hash);
    },
  };
}

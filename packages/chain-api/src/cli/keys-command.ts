import { parseArgs } from 'node:util';
import { type Database, DatabaseLockedError } from '@sluice/db';
import type { AppConfig } from '../config/index.js';
import { type ApiKeyRecord, createKeyStore } from '../keys/key-store.js';
import { keyUsageLines, usageTable, withUsageStore } from './keys-usage.js';
import { openStore } from './open-store.js';

const usage = `Usage:
  sluice-chain keys create [--name <name>] [--rate-limit <requests per window>]
                           [--cu-quota <compute units>] [--cu-period day|month]
  sluice-chain keys update <key id> [--cu-quota <compute units>|none] [--cu-period day|month]
  sluice-chain keys list [--all]
  sluice-chain keys usage [--all] [--json]
  sluice-chain keys revoke <key id>`;

const actions = ['create', 'update', 'list', 'usage', 'revoke'] as const;
type Action = (typeof actions)[number];

type Parsed = {
  rateLimit: number | null;
  /** undefined: not given; null: `none` (unlimited). */
  cuQuota: number | null | undefined;
  cuPeriod: 'day' | 'month' | undefined;
};

/** The numeric options, or the line explaining what is wrong with them. */
function parseLimits(values: Record<string, string | boolean | undefined>): Parsed | string {
  let rateLimit: number | null = null;
  const rate = values['rate-limit'];
  if (typeof rate === 'string') {
    if (!/^\d+$/.test(rate) || Number(rate) < 1) {
      return '--rate-limit must be a positive integer (requests per RATE_LIMIT_WINDOW_MS)';
    }
    rateLimit = Number(rate);
  }
  let cuQuota: number | null | undefined;
  const quota = values['cu-quota'];
  if (typeof quota === 'string') {
    if (quota === 'none') cuQuota = null;
    else if (/^\d{1,15}$/.test(quota)) cuQuota = Number(quota);
    else return '--cu-quota must be a whole number of compute units (0 or more) or none';
  }
  const period = values['cu-period'];
  if (period !== undefined && period !== 'day' && period !== 'month') {
    return '--cu-period must be day or month';
  }
  return { rateLimit, cuQuota, cuPeriod: period };
}

function parseKeysArgs(args: string[]) {
  return parseArgs({
    args,
    options: {
      name: { type: 'string' },
      'rate-limit': { type: 'string' },
      'cu-quota': { type: 'string' },
      'cu-period': { type: 'string' },
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
}

const quotaText = (k: ApiKeyRecord) =>
  k.cuQuota === null ? 'cu=unlimited' : `cu=${k.cuQuota}/${k.cuPeriod}`;

/** `sluice-chain keys create|update|list|usage|revoke`: manages hashed API keys in the store. */
export async function keysCommand(
  args: string[],
  config: AppConfig,
  out: (line: string) => void,
): Promise<number> {
  const [action, ...rest] = args;
  let parsed: ReturnType<typeof parseKeysArgs>;
  try {
    parsed = parseKeysArgs(rest);
  } catch (error) {
    out(`${(error as Error).message}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (!actions.includes(action as Action)) {
    out(usage);
    return 2;
  }
  const limits = parseLimits(values);
  if (typeof limits === 'string') {
    out(limits);
    return 2;
  }
  const needsId = action === 'revoke' || action === 'update';
  if (needsId !== (positionals.length === 1) || positionals.length > 1) {
    out(usage);
    return 2;
  }
  if (action === 'update' && limits.cuQuota === undefined && limits.cuPeriod === undefined) {
    out('keys update needs --cu-quota and/or --cu-period');
    return 2;
  }

  let db: Database;
  try {
    db = await openStore(config);
  } catch (error) {
    if (!(error instanceof DatabaseLockedError)) throw error;
    // A PGlite folder belongs to one process: a key written beside a running server would never
    // be seen by it (and two writers corrupt the folder).
    out(
      `The PGlite data folder ${error.dataDir} is in use by process ${error.pid} ` +
        '(a running `sluice-chain serve`?). Keys cannot be changed while it runs: stop the ' +
        'server and run this again, or give keys to the server with API_KEYS=key1,key2, or use ' +
        'PostgreSQL (DATABASE_URL), where keys can be managed while it serves.',
    );
    return 1;
  }
  try {
    return await run(action as Action, { db, config, values, positionals, limits, out });
  } finally {
    await db.close();
  }
}

async function run(
  action: Action,
  c: {
    db: Database;
    config: AppConfig;
    values: Record<string, string | boolean | undefined>;
    positionals: string[];
    limits: Parsed;
    out: (line: string) => void;
  },
): Promise<number> {
  const { out, limits } = c;
  const store = createKeyStore(c.db);
  if (action === 'create') {
    const { key, record } = await store.create({
      name: typeof c.values.name === 'string' ? c.values.name : 'default',
      rateLimit: limits.rateLimit,
      cuQuota: limits.cuQuota ?? null,
      cuPeriod: limits.cuPeriod ?? 'month',
    });
    out(key);
    out(
      `id ${record.id} (${record.name}, ${quotaText(record)}); store the key now: only its hash is kept.`,
    );
    return 0;
  }
  if (action === 'update') {
    const id = c.positionals[0]!;
    const record = await store.updateQuota(id, {
      ...(limits.cuQuota !== undefined ? { cuQuota: limits.cuQuota } : {}),
      ...(limits.cuPeriod ? { cuPeriod: limits.cuPeriod } : {}),
    });
    if (!record) {
      out(`no active key with id ${id}`);
      return 1;
    }
    out(
      `updated ${record.id}: ${quotaText(record)} (running servers apply it within KEY_CACHE_TTL_MS)`,
    );
    return 0;
  }
  if (action === 'list') {
    const keys = await store.list({ includeRevoked: c.values.all === true });
    if (keys.length === 0) out('no keys');
    for (const k of keys) {
      out(
        [
          k.id,
          k.hint,
          k.name,
          `limit=${k.rateLimit ?? 'default'}`,
          quotaText(k),
          `created=${k.createdAt}`,
          k.revokedAt ? `revoked=${k.revokedAt}` : 'active',
        ].join('  '),
      );
    }
    return 0;
  }
  if (action === 'usage') {
    const keys = await store.list({ includeRevoked: c.values.all === true });
    const lines = await withUsageStore(c.config, c.db, (usage) => keyUsageLines(keys, usage));
    if (c.values.json === true) out(JSON.stringify(lines, null, 2));
    else if (lines.length === 0) out('no keys');
    else for (const line of usageTable(lines)) out(line);
    return 0;
  }
  const id = c.positionals[0]!;
  if (await store.revoke(id)) {
    out(`revoked ${id}`);
    return 0;
  }
  out(`no active key with id ${id}`);
  return 1;
}

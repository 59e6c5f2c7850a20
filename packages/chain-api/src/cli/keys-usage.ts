import type { Database } from '@sluice/db';
import { Redis } from 'ioredis';
import type { AppConfig } from '../config/index.js';
import type { ApiKeyRecord } from '../keys/key-store.js';
import { createRedisUsageStore, usageNamespace } from '../keys/redis-usage-store.js';
import { usageSlot } from '../keys/usage-period.js';
import { createDbUsageStore, type UsageStore } from '../keys/usage-store.js';

/** One key's use of its current period, as `keys usage --json` prints it. */
export interface KeyUsageLine {
  id: string;
  name: string;
  period: 'day' | 'month';
  used: number;
  /** null: unlimited. */
  quota: number | null;
  remaining: number | null;
  period_start: string;
  period_end: string;
}

/** Each key's compute units of its current period, read where `serve` counts them. */
export async function keyUsageLines(
  keys: readonly ApiKeyRecord[],
  store: UsageStore,
  at = new Date(),
): Promise<KeyUsageLine[]> {
  const slots = keys.map((k) => usageSlot(k.id, k.cuPeriod, at));
  const used = await store.read(slots);
  return keys.map((k, i) => {
    const slot = slots[i]!;
    const units = used[i] ?? 0;
    return {
      id: k.id,
      name: k.name,
      period: k.cuPeriod,
      used: units,
      quota: k.cuQuota,
      remaining: k.cuQuota === null ? null : Math.max(0, k.cuQuota - units),
      period_start: slot.periodStart.toISOString(),
      period_end: slot.periodEnd.toISOString(),
    };
  });
}

/** The lines as an aligned text table. */
export function usageTable(lines: readonly KeyUsageLine[]): string[] {
  const head = ['id', 'name', 'period', 'used', 'quota', 'remaining', 'period start', 'period end'];
  const rows = lines.map((l) => [
    l.id,
    l.name,
    l.period,
    String(l.used),
    l.quota === null ? 'unlimited' : String(l.quota),
    l.remaining === null ? '-' : String(l.remaining),
    l.period_start,
    l.period_end,
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  return [head, ...rows].map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Runs `fn` with the store `serve` counts in: Redis when REDIS_URL is set (it must answer), else
 * the database.
 */
export async function withUsageStore<T>(
  config: AppConfig,
  db: Database,
  fn: (store: UsageStore) => Promise<T>,
): Promise<T> {
  if (!config.redisUrl) return fn(createDbUsageStore(db));
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await fn(createRedisUsageStore(redis, usageNamespace, () => {}));
  } finally {
    redis.disconnect();
  }
}

import type { Redis } from 'ioredis';
import { periodBounds, type UsageSlot } from './usage-period.js';
import type { UsageStore } from './usage-store.js';

// Check and add in one step: concurrent reservations from every API process are serialized by
// Redis, so the counter never passes the quota. ARGV: amount, quota (-1: none), expiry (ms).
const reserveScript = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
local quota = tonumber(ARGV[2])
if quota >= 0 and used + amount > quota then return {0, used} end
used = redis.call('INCRBY', KEYS[1], amount)
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return {1, used}`;

// Never below zero, and never re-creates an expired counter (it would have no expiry).
const releaseScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local left = redis.call('DECRBY', KEYS[1], ARGV[1])
if left < 0 then redis.call('SET', KEYS[1], 0, 'KEEPTTL') end
return left`;

/** Prefix of the counters `sluice-chain serve` and `sluice-chain keys usage` share. */
export const usageNamespace = 'sluice-usage:';

type ScriptCall = (key: string, ...args: (string | number)[]) => Promise<unknown>;

/** Counters outlive their period by a day (`keys usage` right after the turn of the period). */
const keepAfterEndMs = 86_400_000;

/**
 * Counters in Redis, shared by every API process: `<ns>cu:<key id>:<period>:<start ms>` per key
 * and a `<ns>cu-total:<period>:<start ms>` hash of all keys' units and requests. While Redis is
 * unreachable reservations are granted without counting (as rate limits fail open) and
 * `onFallback` is told once per outage.
 *
 * @example
 * const store = createRedisUsageStore(redis, 'sluice:', (err) => log.warn({ err }, 'redis'));
 */
export function createRedisUsageStore(
  redis: Redis,
  namespace: string,
  onFallback: (error: Error | undefined) => void,
): UsageStore {
  redis.defineCommand('sluiceCuReserve', { numberOfKeys: 1, lua: reserveScript });
  redis.defineCommand('sluiceCuRelease', { numberOfKeys: 1, lua: releaseScript });
  const scripts = redis as unknown as { sluiceCuReserve: ScriptCall; sluiceCuRelease: ScriptCall };
  let degraded = false;
  const fellBack = (error?: Error) => {
    if (degraded) return;
    degraded = true;
    onFallback(error);
  };
  redis.on('ready', () => {
    degraded = false;
  });
  const slotKey = (slot: UsageSlot) =>
    `${namespace}cu:${slot.keyId}:${slot.period}:${slot.periodStart.getTime()}`;
  const totalKey = (period: 'day' | 'month', at: Date) =>
    `${namespace}cu-total:${period}:${periodBounds(period, at).start.getTime()}`;

  return {
    async reserve(slot, amount, quota) {
      if (redis.status !== 'ready') {
        fellBack();
        return { granted: true, used: -1 };
      }
      try {
        const expiry = slot.periodEnd.getTime() + keepAfterEndMs;
        const [granted, used] = (await scripts.sluiceCuReserve(
          slotKey(slot),
          amount,
          quota ?? -1,
          expiry,
        )) as [number, number];
        return { granted: granted === 1, used: Number(used) };
      } catch (error) {
        fellBack(error as Error);
        return { granted: true, used: -1 };
      }
    },
    async release(slot, amount) {
      if (redis.status !== 'ready') return;
      await scripts.sluiceCuRelease(slotKey(slot), amount).catch((error: Error) => {
        fellBack(error);
      });
    },
    async read(slots) {
      if (slots.length === 0) return [];
      const values = await redis.mget(slots.map(slotKey));
      return values.map((v) => Number(v ?? 0));
    },
    async addTotals(at, computeUnits, requests) {
      // While Redis is down the totals of this process are not counted (as reservations).
      if (redis.status !== 'ready') return fellBack();
      const multi = redis.multi();
      for (const period of ['day', 'month'] as const) {
        const key = totalKey(period, at);
        multi.hincrby(key, 'cu', computeUnits);
        multi.hincrby(key, 'requests', requests);
        multi.pexpireat(key, periodBounds(period, at).end.getTime() + keepAfterEndMs);
      }
      await multi.exec();
    },
    async totals(at) {
      const [day, month] = await Promise.all(
        (['day', 'month'] as const).map((p) => redis.hmget(totalKey(p, at), 'cu', 'requests')),
      );
      const of = (v: (string | null)[] | undefined) => ({
        computeUnits: Number(v?.[0] ?? 0),
        requests: Number(v?.[1] ?? 0),
      });
      return { day: of(day), month: of(month) };
    },
  };
}

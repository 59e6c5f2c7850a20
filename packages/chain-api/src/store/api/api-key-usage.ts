import type { Queryable } from '@sluice/db';

/** Quota period of a key: UTC calendar day or month. */
export type UsagePeriod = 'day' | 'month';

/** One key's counter for one period. */
export interface UsageSlotRow {
  keyId: string;
  period: UsagePeriod;
  periodStart: Date;
}

const usedIn = async (db: Queryable, slot: UsageSlotRow): Promise<number> => {
  const { rows } = await db.query<{ compute_units: string }>(
    `select compute_units from api_key_usage
     where key_id = $1 and period = $2 and period_start = $3`,
    [slot.keyId, slot.period, slot.periodStart],
  );
  return rows[0] ? Number(rows[0].compute_units) : 0;
};

/**
 * Adds `amount` compute units to a key's period unless the total would pass `quota` (null: no
 * limit), in one statement: the upsert's row lock makes concurrent reservations from any number
 * of API processes queue, so the total never passes the quota.
 */
export async function reserveKeyUsage(
  db: Queryable,
  slot: UsageSlotRow,
  amount: number,
  quota: number | null,
): Promise<{ granted: boolean; used: number }> {
  if (quota !== null && amount > quota) return { granted: false, used: await usedIn(db, slot) };
  const { rows } = await db.query<{ compute_units: string }>(
    `insert into api_key_usage as u (key_id, period, period_start, compute_units)
     values ($1, $2, $3, $4)
     on conflict (key_id, period, period_start) do update
       set compute_units = u.compute_units + excluded.compute_units
       where $5::bigint is null or u.compute_units + excluded.compute_units <= $5::bigint
     returning compute_units`,
    [slot.keyId, slot.period, slot.periodStart, amount, quota],
  );
  const row = rows[0];
  if (row) return { granted: true, used: Number(row.compute_units) };
  return { granted: false, used: await usedIn(db, slot) };
}

/** Gives back reserved units that were not used (never below zero). */
export async function releaseKeyUsage(
  db: Queryable,
  slot: UsageSlotRow,
  amount: number,
): Promise<void> {
  await db.query(
    `update api_key_usage set compute_units = greatest(0, compute_units - $4)
     where key_id = $1 and period = $2 and period_start = $3`,
    [slot.keyId, slot.period, slot.periodStart, amount],
  );
}

/** Units used by each slot (0 where nothing was counted), in the order given. */
export async function readKeyUsage(
  db: Queryable,
  slots: readonly UsageSlotRow[],
): Promise<number[]> {
  if (slots.length === 0) return [];
  const { rows } = await db.query<{ key_id: string; period: string; compute_units: string }>(
    `select u.key_id, u.period, u.compute_units
     from unnest($1::text[], $2::text[], $3::timestamptz[]) as s (key_id, period, period_start)
     join api_key_usage u using (key_id, period, period_start)`,
    [slots.map((s) => s.keyId), slots.map((s) => s.period), slots.map((s) => s.periodStart)],
  );
  const used = new Map(rows.map((r) => [`${r.key_id}|${r.period}`, Number(r.compute_units)]));
  return slots.map((s) => used.get(`${s.keyId}|${s.period}`) ?? 0);
}

/** All keys' units and answered requests for the current UTC day and month. */
export interface UsageTotalsRow {
  day: { computeUnits: number; requests: number };
  month: { computeUnits: number; requests: number };
}

/** Adds to the day and month totals (both periods at once). */
export async function addUsageTotals(
  db: Queryable,
  dayStart: Date,
  monthStart: Date,
  computeUnits: number,
  requests: number,
): Promise<void> {
  await db.query(
    `insert into api_usage_totals as t (period, period_start, compute_units, requests)
     values ('day', $1, $3, $4), ('month', $2, $3, $4)
     on conflict (period, period_start) do update
       set compute_units = t.compute_units + excluded.compute_units,
           requests = t.requests + excluded.requests`,
    [dayStart, monthStart, computeUnits, requests],
  );
}

export async function readUsageTotals(
  db: Queryable,
  dayStart: Date,
  monthStart: Date,
): Promise<UsageTotalsRow> {
  const { rows } = await db.query<{ period: string; compute_units: string; requests: string }>(
    `select period, compute_units, requests from api_usage_totals
     where (period = 'day' and period_start = $1) or (period = 'month' and period_start = $2)`,
    [dayStart, monthStart],
  );
  const of = (period: string) => {
    const row = rows.find((r) => r.period === period);
    return { computeUnits: Number(row?.compute_units ?? 0), requests: Number(row?.requests ?? 0) };
  };
  return { day: of('day'), month: of('month') };
}

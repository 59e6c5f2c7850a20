import type { UsagePeriod } from '../store/api/api-key-usage.js';
import { sameSlot, type UsageSlot, usageSlot } from './usage-period.js';
import type { UsageStore, UsageTotals } from './usage-store.js';

/** What the meter needs of an authenticated key. */
export interface MeteredKey {
  id: string;
  cuQuota: number | null;
  cuPeriod: UsagePeriod;
}

/** Units reserved for one request: settle it when the request ends. */
export interface Reservation {
  granted: true;
  slot: UsageSlot;
  units: number;
}

/** The request would pass the key's quota. */
export interface QuotaRefusal {
  granted: false;
  slot: UsageSlot;
  quota: number;
  /** Units used in the period as the store counted them (-1: unknown). */
  used: number;
}

export interface UsageMeter {
  /** Reserves `units` for `key` before the work is done; a refusal when the quota would pass. */
  reserve(key: MeteredKey, units: number): Promise<Reservation | QuotaRefusal>;
  /**
   * The same from what this process already holds, without waiting: undefined when that is not
   * enough (then `reserve`). The hot path of every request.
   */
  reserveHeld(key: MeteredKey, units: number): Reservation | undefined;
  /** Ends a request: `answered` counts it; otherwise its units go back to the key. */
  settle(reservation: Reservation, answered: boolean): void;
  /** Totals of every key for this day and month (as last flushed; read at most once a second). */
  totals(): Promise<UsageTotals>;
  /** Flushes totals and gives every unused lease back. */
  close(): Promise<void>;
}

export interface UsageMeterOptions {
  /**
   * Units one process reserves ahead for a key: this many at least (default 100), or about a
   * second of the key's traffic when more (at most 100 times this).
   */
  maxLease?: number;
  /** A lease untouched this long is given back (default 2 s). */
  idleMs?: number;
  /** How often totals are flushed and idle leases given back (default 1 s). */
  flushMs?: number;
  /** Told when a background flush fails (the units are retried at the next flush). */
  onError?: (error: unknown) => void;
  now?: () => number;
}

/** Units reserved in the store and not yet handed to a request. */
interface Lease {
  slot: UsageSlot;
  quota: number | null;
  balance: number;
  touched: number;
  /** The store's count after our last reservation (-1: unknown). */
  knownUsed: number;
  /** A reservation in flight: others wait for it instead of reserving too. */
  flight: Promise<void> | undefined;
  retired: boolean;
  /** Units handed out since `windowStart`, and per second in the window before. */
  windowStart: number;
  windowUnits: number;
  rate: number;
}

/**
 * Counts each request's compute units against its key's quota in a shared `UsageStore`, and
 * keeps the per-request cost off the hot path: a process reserves a lease of units ahead (at
 * most `maxLease`, and at most 1/16 of what is left of the quota, so near the end of a quota
 * every request reserves exactly its own units) and hands them out from memory. Each
 * reservation is atomic in the store, so all processes together never pass a quota; leases a
 * process does not use go back when idle and at close.
 *
 * @example
 * const meter = createUsageMeter(createDbUsageStore(primary));
 * const r = await meter.reserve(request.apiKey, 3);
 */
export function createUsageMeter(store: UsageStore, opts: UsageMeterOptions = {}): UsageMeter {
  const maxLease = opts.maxLease ?? 100;
  const idleMs = opts.idleMs ?? 2_000;
  const now = opts.now ?? Date.now;
  const onError = opts.onError ?? (() => {});
  const leases = new Map<string, Lease>();
  let pending = { units: 0, requests: 0 };
  let flushing: Promise<void> | undefined;
  let totalsMemo: { at: number; value: Promise<UsageTotals> } | undefined;

  const giveBack = async (lease: Lease): Promise<void> => {
    const amount = lease.balance;
    lease.balance = 0;
    if (amount > 0) await store.release(lease.slot, amount).catch(onError);
  };

  const leaseSize = (lease: Lease, units: number): number => {
    const perSecond = Math.max(lease.rate, lease.windowUnits);
    const base = Math.min(maxLease * 100, Math.max(maxLease, perSecond));
    if (lease.quota === null) return Math.max(units, base);
    if (lease.knownUsed < 0) return units;
    const ahead = Math.floor((lease.quota - lease.knownUsed) / 16);
    return Math.max(units, Math.min(base, ahead));
  };

  /** Hands `units` out of the lease. */
  const handOut = (lease: Lease, units: number, at: number): Reservation => {
    lease.balance -= units;
    return handedOut(lease, units, at);
  };

  /** Notes units handed out (the rate); refills the lease in the background when it runs low. */
  const handedOut = (lease: Lease, units: number, at: number): Reservation => {
    lease.touched = at;
    if (at - lease.windowStart >= 1_000) {
      lease.rate = Math.round((lease.windowUnits * 1_000) / (at - lease.windowStart));
      lease.windowStart = at;
      lease.windowUnits = 0;
    }
    lease.windowUnits += units;
    // Refill before it is empty, so requests do not queue behind a round trip to the store.
    const want = leaseSize(lease, 0);
    if (!lease.flight && !lease.retired && want > 0 && lease.balance < want / 2) {
      lease.flight = store
        .reserve(lease.slot, want, lease.quota)
        .then((r) => {
          lease.knownUsed = r.used;
          if (!r.granted) return;
          lease.balance += want;
          if (lease.retired) void giveBack(lease);
        })
        .catch(onError)
        .finally(() => {
          lease.flight = undefined;
        });
    }
    return { granted: true, slot: lease.slot, units };
  };

  /** One reservation in the store for `units` (and a lease beyond it when sensible). */
  const take = async (lease: Lease, units: number): Promise<QuotaRefusal | undefined> => {
    const want = leaseSize(lease, units);
    let result = await store.reserve(lease.slot, want, lease.quota);
    let got = want;
    if (!result.granted && (want > units || lease.balance > 0)) {
      // Room for this request may be split between what this process holds and the store.
      const held = lease.balance;
      lease.balance = 0;
      if (held > 0) await store.release(lease.slot, held);
      result = await store.reserve(lease.slot, units, lease.quota);
      got = units;
    }
    lease.knownUsed = result.used;
    if (!result.granted) {
      return { granted: false, slot: lease.slot, quota: lease.quota ?? 0, used: result.used };
    }
    lease.balance += got - units;
    if (lease.retired) void giveBack(lease);
    return undefined;
  };

  /** The lease of `key` if it is still for the period containing `at` and the same quota. */
  const heldLease = (key: MeteredKey, at: number): Lease | undefined => {
    const held = leases.get(key.id);
    if (!held || held.quota !== key.cuQuota || held.slot.period !== key.cuPeriod) return undefined;
    const { periodStart, periodEnd } = held.slot;
    return at >= periodStart.getTime() && at < periodEnd.getTime() ? held : undefined;
  };

  const currentLease = (key: MeteredKey, at: number): Lease => {
    const current = heldLease(key, at);
    if (current) return current;
    const slot = usageSlot(key.id, key.cuPeriod, new Date(at));
    const held = leases.get(key.id);
    if (held) {
      // A new period or a changed quota: what was reserved under the old terms goes back.
      held.retired = true;
      void giveBack(held);
    }
    const lease: Lease = {
      slot,
      quota: key.cuQuota,
      balance: 0,
      touched: at,
      knownUsed: -1,
      flight: undefined,
      retired: false,
      windowStart: at,
      windowUnits: 0,
      rate: 0,
    };
    leases.set(key.id, lease);
    return lease;
  };

  const flush = async (all: boolean) => {
    const at = now();
    const releases: Promise<void>[] = [];
    for (const [id, lease] of leases) {
      if (lease.flight || (!all && at - lease.touched < idleMs)) continue;
      releases.push(giveBack(lease));
      leases.delete(id);
    }
    await Promise.all(releases);
    if (pending.units === 0 && pending.requests === 0) return;
    const sending = pending;
    pending = { units: 0, requests: 0 };
    try {
      await store.addTotals(new Date(at), sending.units, sending.requests);
    } catch (error) {
      pending.units += sending.units;
      pending.requests += sending.requests;
      onError(error);
    }
  };
  const flushOnce = (all: boolean) => {
    flushing ??= flush(all).finally(() => {
      flushing = undefined;
    });
    return flushing;
  };
  const timer = setInterval(() => void flushOnce(false), opts.flushMs ?? 1_000);
  timer.unref();

  return {
    reserveHeld(key, units) {
      const at = now();
      const lease = heldLease(key, at);
      if (!lease || lease.balance < units) return undefined;
      return handOut(lease, units, at);
    },
    async reserve(key, units) {
      for (;;) {
        const at = now();
        const lease = currentLease(key, at);
        lease.touched = at;
        if (lease.balance >= units) return handOut(lease, units, at);
        if (lease.flight) {
          await lease.flight.catch(() => {});
          continue;
        }
        let refusal: QuotaRefusal | undefined;
        // `take` reserves this request's units (and a lease beyond them) in one step.
        const flight = take(lease, units).then((r) => {
          refusal = r;
        });
        lease.flight = flight;
        try {
          await flight;
        } finally {
          lease.flight = undefined;
        }
        return refusal ?? handedOut(lease, units, now());
      }
    },
    settle(reservation, answered) {
      if (answered) {
        pending.units += reservation.units;
        pending.requests += 1;
        return;
      }
      if (reservation.units === 0) return;
      const lease = leases.get(reservation.slot.keyId);
      if (lease && !lease.retired && sameSlot(lease.slot, reservation.slot)) {
        lease.balance += reservation.units;
      } else {
        store.release(reservation.slot, reservation.units).catch(onError);
      }
    },
    totals() {
      // /health is public and unlimited: one store read per second at most.
      const at = now();
      if (!totalsMemo || at - totalsMemo.at > 1_000) {
        const value = store.totals(new Date(at)).catch((error: unknown) => {
          totalsMemo = undefined;
          throw error;
        });
        totalsMemo = { at, value };
      }
      return totalsMemo.value;
    },
    async close() {
      clearInterval(timer);
      await flushing;
      await flushOnce(true);
    },
  };
}

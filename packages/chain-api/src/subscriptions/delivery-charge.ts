import type { Database } from '@sluice/db';
import type { Logger } from 'pino';
import { messageOf } from '../errors/index.js';
import { usageSlot } from '../keys/usage-period.js';
import type { UsageStore } from '../keys/usage-store.js';
import {
  holdDelivery,
  readWebhookOwner,
  type WebhookOwner,
} from '../store/subscriptions/webhook-owner.js';

/** The peer's price: 2 compute units per event delivered (a delivery carries several). */
export const UNITS_PER_EVENT = 2;

/** Message a held delivery shows as its `last_error` (the delivery log, the API). */
export const QUOTA_EXHAUSTED = 'compute unit quota exhausted';

/** Charges delivered events to the webhook's owning key, and holds deliveries over its quota. */
export interface DeliveryCharger {
  /**
   * Before sending: true when the owner's quota has no room for this delivery's units; the
   * delivery was then put back (pending, `last_error` {@link QUOTA_EXHAUSTED}, attempt not
   * counted) until the period rolls over or `recheckMs` passes (a raised quota is seen then).
   */
  held(delivery: ChargedDelivery): Promise<boolean>;
  /**
   * After the receivers acknowledged: adds the deliveries' units to their owners' periods, one
   * counter update per owner (a dispatcher records a round's answers together).
   */
  charge(deliveries: readonly ChargedDelivery[]): Promise<void>;
}

/** What charging a delivery needs of it. */
export interface ChargedDelivery {
  id: string;
  webhookId: string;
  attempt: number;
  itemCount: number;
}

/** Options of {@link createDeliveryCharger}. */
export interface DeliveryChargerOptions {
  db: Database;
  /** The API's compute-unit counters (Redis or `api_key_usage`). */
  usage: UsageStore;
  log: Logger;
  /** A held delivery looks at the quota again after this long at most. Default 30 s. */
  recheckMs?: number;
  /**
   * How long a webhook's owner and quota are kept between deliveries (one read per webhook per
   * this long, not one per delivery); a changed quota is seen after at most this. Default 5 s.
   */
  ownerTtlMs?: number;
  now?: () => Date;
}

/**
 * Compute units of deliveries, counted where the API counts its requests': every event (item)
 * acknowledged costs {@link UNITS_PER_EVENT}, removed (reorg) items included; a delivery that
 * was not acknowledged costs nothing. Nothing is dropped when a quota runs out: the webhook's
 * queue waits, in order, until the next period or a raised quota. The check before sending is a
 * read, so deliveries in flight together may pass a quota by at most their own units.
 *
 * @example
 * const charger = createDeliveryCharger({ db, usage: createDbUsageStore(db), log });
 * if (!(await charger.held(delivery))) await charger.charge([delivery]);
 */
export function createDeliveryCharger(opts: DeliveryChargerOptions): DeliveryCharger {
  const { db, usage, log } = opts;
  const recheckMs = opts.recheckMs ?? 30_000;
  const ownerTtlMs = opts.ownerTtlMs ?? 5_000;
  const now = opts.now ?? (() => new Date());
  const units = (d: ChargedDelivery) => UNITS_PER_EVENT * d.itemCount;
  const owners = new Map<string, { at: number; owner: Promise<WebhookOwner | undefined> }>();
  const ownerOf = (webhookId: string): Promise<WebhookOwner | undefined> => {
    const at = Date.now();
    const kept = owners.get(webhookId);
    if (kept && at - kept.at < ownerTtlMs) return kept.owner;
    // Bounded: webhooks not seen for a while are dropped with the rest.
    if (owners.size >= 10_000) owners.clear();
    const owner = readWebhookOwner(db, webhookId);
    owners.set(webhookId, { at, owner });
    owner.catch(() => owners.delete(webhookId));
    return owner;
  };
  return {
    async held(delivery) {
      const owner = await ownerOf(delivery.webhookId);
      if (!owner || owner.cuQuota === null) return false;
      const at = now();
      const slot = usageSlot(owner.keyId, owner.cuPeriod, at);
      const [used = 0] = await usage.read([slot]);
      const cost = units(delivery);
      if (used + cost <= owner.cuQuota) return false;
      const until = new Date(Math.min(slot.periodEnd.getTime(), at.getTime() + recheckMs));
      const reason = `${QUOTA_EXHAUSTED}: ${used} of ${owner.cuQuota} units used this ${owner.cuPeriod}, this delivery needs ${cost}; held until ${slot.periodEnd.toISOString()} or a raised quota`;
      await holdDelivery(db, delivery, until, reason);
      return true;
    },
    async charge(deliveries) {
      if (deliveries.length === 0) return;
      try {
        const at = now();
        const byKey = new Map<string, { owner: WebhookOwner; units: number }>();
        let total = 0;
        for (const delivery of deliveries) {
          const owner = await ownerOf(delivery.webhookId);
          if (!owner) continue;
          const entry = byKey.get(owner.keyId) ?? { owner, units: 0 };
          entry.units += units(delivery);
          byKey.set(owner.keyId, entry);
          total += units(delivery);
        }
        // Already delivered: counted whatever the quota (the check before sending held the rest).
        for (const { owner, units: n } of byKey.values()) {
          await usage.reserve(usageSlot(owner.keyId, owner.cuPeriod, at), n, null);
        }
        if (total > 0) await usage.addTotals(at, total, 0);
      } catch (error) {
        log.warn(
          { deliveries: deliveries.map((d) => d.id), err: messageOf(error) },
          'webhook delivery compute units not counted',
        );
      }
    },
  };
}

import type { Database, Listener } from '@sluice/db';
import type { Logger } from 'pino';
import type { WebhooksConfig } from '../config/index.js';
import { messageOf } from '../errors/index.js';
import { createDbUsageStore, type UsageStore } from '../keys/usage-store.js';
import type { Resolver } from '../net/guarded-lookup.js';
import {
  type ClaimedDelivery,
  claimDeliveries,
  type DeliveredAttempt,
  hasOpenDeliveries,
  markDeliveredMany,
  markFailed,
  pruneDeliveries,
} from '../store/subscriptions/delivery-queue.js';
import { deliveryStats } from '../store/subscriptions/delivery-stats.js';
import { OUTBOX_CHANNEL } from '../store/subscriptions/queue-deliveries.js';
import { createDeliveryCharger } from './delivery-charge.js';
import { deliveryRequest } from './delivery-request.js';
import { DeliveryError } from './errors.js';
import { createWebhookSender } from './webhook-sender.js';

/** Options of {@link startDispatcher}. */
export interface DispatcherOptions {
  db: Database;
  log: Logger;
  config: Omit<WebhooksConfig, 'maxConnectionsPerHost'> &
    Partial<Pick<WebhooksConfig, 'maxConnectionsPerHost'>>;
  /** Deadline of one attempt. Default 10 s. */
  timeoutMs?: number;
  /** A webhook failing this long straight is switched off. Default 24 h. */
  disableAfterMs?: number;
  /** Host name resolver (tests). */
  resolve?: Resolver;
  /** Finished deliveries are kept this long for the delivery log. Default 7 days. */
  retainMs?: number;
  /** Where the owners' compute units are counted (as the API's). Default `api_key_usage` in `db`. */
  usage?: UsageStore;
  /** A delivery held by its owner's exhausted quota looks again after this long. Default 30 s. */
  quotaRecheckMs?: number;
}

/** What this process's dispatcher has done since it started. */
export interface DispatcherCounters {
  attempts: number;
  delivered: number;
  failed_attempts: number;
  events_delivered: number;
  in_flight: number;
}

/** A running dispatcher. */
export interface Dispatcher {
  counters(): DispatcherCounters;
  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Starts sending the webhook outbox: claims due deliveries (several processes may run one each
 * on the same store; claims never overlap), POSTs each signed body, and records the answer. A
 * non-2xx answer, timeout or connection error is retried after `retryScheduleMs[n]`, then the
 * delivery is failed. Each webhook has at most one delivery in flight per chain (the claim only
 * picks a queue's oldest), so a slow receiver holds back only its own webhook; at most
 * `concurrency` attempts run at once.
 *
 * @example
 * const dispatcher = startDispatcher({ db, log, config: config.webhooks });
 * await dispatcher.stop();
 */
export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, log, config } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const disableAfterMs = options.disableAfterMs ?? 86_400_000;
  // A claim outlives the attempt's deadline; past it, a crashed sender's delivery goes out again.
  const leaseMs = timeoutMs + 5_000;
  const sender = createWebhookSender({
    allowHosts: config.allowHosts,
    timeoutMs,
    maxSocketsPerHost: config.maxConnectionsPerHost,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const charger = createDeliveryCharger({
    db,
    log,
    usage: options.usage ?? createDbUsageStore(db),
    // A held delivery's re-check must see a raised quota: owners are not kept longer than it.
    ...(options.quotaRecheckMs !== undefined
      ? { recheckMs: options.quotaRecheckMs, ownerTtlMs: Math.min(5_000, options.quotaRecheckMs) }
      : {}),
  });
  const inFlight = new Set<Promise<void>>();
  const counters: DispatcherCounters = {
    attempts: 0,
    delivered: 0,
    failed_attempts: 0,
    events_delivered: 0,
    in_flight: 0,
  };
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  /** Set by a commit notice or the poll timer: claim even a few free slots. */
  let eager = true;
  const wake = () => wakeUp?.();
  const notice = () => {
    eager = true;
    wake();
  };
  // A claim costs about the same for 1 delivery as for 64: after completions, claim once a
  // slice of the slots is free (a notice, the poll timer or an idle dispatcher claims at once).
  const claimAtLeast = Math.max(1, Math.ceil(config.concurrency / 8));

  /** 2xx answers not yet recorded: written together by {@link recordDelivered}. */
  let answered: { delivery: ClaimedDelivery; status: number }[] = [];

  /**
   * The one place a delivery becomes delivered: records the gathered 2xx answers in one statement,
   * then counts those recorded (a delivery whose claim was lost to another sender is not counted).
   * Per-delivery work that must happen once per delivered delivery belongs here. A store error
   * keeps the answers for the next round (recording is idempotent per attempt); meanwhile their
   * claims hold their webhooks back, and past the lease they go out again with the same id.
   */
  async function recordDelivered(): Promise<boolean> {
    if (answered.length === 0) return true;
    const batch = answered;
    answered = [];
    let recorded: Set<string>;
    try {
      recorded = await markDeliveredMany(
        db,
        batch.map(
          ({ delivery, status }): DeliveredAttempt => ({
            id: delivery.id,
            webhookId: delivery.webhookId,
            attempt: delivery.attempt,
            status,
          }),
        ),
      );
    } catch (error) {
      answered = [...batch, ...answered];
      log.error(
        { deliveries: batch.length, err: messageOf(error) },
        'webhook deliveries not recorded',
      );
      return false;
    }
    const charged: ClaimedDelivery[] = [];
    for (const { delivery } of batch) {
      if (!recorded.has(delivery.id)) continue;
      counters.delivered++;
      counters.events_delivered += delivery.itemCount;
      charged.push(delivery);
    }
    await charger.charge(charged);
    return true;
  }

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    if (await charger.held(delivery)) return;
    counters.attempts++;
    const { body, headers } = deliveryRequest(delivery, new Date());
    try {
      const { status } = await sender.post(delivery.url, headers, body);
      answered.push({ delivery, status });
    } catch (thrown) {
      counters.failed_attempts++;
      const error =
        thrown instanceof DeliveryError
          ? thrown
          : new DeliveryError('WEBHOOK_NETWORK', messageOf(thrown));
      const retryDelayMs = config.retryScheduleMs[delivery.attempt - 1];
      const outcome = await markFailed(db, delivery, {
        status: error.status,
        error: `${error.code}: ${error.shortMessage}`,
        retryDelayMs,
        disableAfterMs,
      });
      log.warn(
        {
          webhook: delivery.webhookId,
          delivery: delivery.id,
          attempt: delivery.attempt,
          code: error.code,
          final: outcome.final,
          disabled: outcome.disabled,
        },
        'webhook delivery attempt failed',
      );
    }
  }

  function launch(delivery: ClaimedDelivery): void {
    const running: Promise<void> = attempt(delivery)
      .catch((error: unknown) => {
        // The store was unreachable: the claim expires and the delivery goes out again (same id).
        log.error(
          { delivery: delivery.id, err: messageOf(error) },
          'webhook delivery not recorded',
        );
      })
      .finally(() => {
        inFlight.delete(running);
        counters.in_flight = inFlight.size;
        wake();
      });
    inFlight.add(running);
    counters.in_flight = inFlight.size;
  }

  let nextHousekeeping = Date.now() + 60_000;
  let housekeepingRuns = 0;
  /** Once a minute: a log line with the outbox's lag; every 10 minutes: drop old finished rows. */
  async function housekeeping(): Promise<void> {
    if (Date.now() < nextHousekeeping) return;
    nextHousekeeping = Date.now() + 60_000;
    try {
      const stats = await deliveryStats(db);
      log.info({ ...stats, ...counters }, 'webhook outbox');
      if (housekeepingRuns++ % 10 === 0) {
        await pruneDeliveries(db, options.retainMs ?? 7 * 86_400_000, 10_000);
      }
    } catch (error) {
      log.warn({ err: messageOf(error) }, 'webhook outbox housekeeping failed');
    }
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      await housekeeping();
      // First the answers: a webhook's next delivery is claimable once its head is recorded.
      const recorded = await recordDelivered();
      const free = config.concurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      let pause = recorded ? config.pollIntervalMs : Math.max(config.pollIntervalMs, 1_000);
      if (free > 0 && (eager || free >= claimAtLeast || inFlight.size === 0)) {
        eager = false;
        try {
          // Idle, this runs every poll interval: an empty outbox then costs a look at its index,
          // not the planning of the claim.
          const open = inFlight.size > 0 || (await hasOpenDeliveries(db));
          claimed = open ? await claimDeliveries(db, free, leaseMs) : [];
        } catch (error) {
          // The store is down or restarting: look again in a second, not at the poll rate.
          pause = Math.max(pause, 1_000);
          log.warn({ err: messageOf(error) }, 'webhook outbox claim failed');
        }
      }
      for (const delivery of claimed) launch(delivery);
      if (stopped) break;
      // Answers arrived meanwhile: record them now (each unblocks its webhook's next delivery).
      if (answered.length > 0 && recorded) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          eager = true;
          resolve();
        }, pause);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    }
    await recordDelivered();
  }

  // Woken at once when a batch queued deliveries (polling stays the fallback for lost notices).
  let listener: Listener | undefined;
  const listening = db
    .listen(OUTBOX_CHANNEL, notice)
    .then((l) => {
      listener = l;
    })
    .catch((error: unknown) => log.warn({ err: messageOf(error) }, 'webhook outbox LISTEN failed'));
  const running = loop();
  return {
    counters: () => ({ ...counters }),
    wake: notice,
    async stop() {
      stopped = true;
      wake();
      await running;
      await Promise.allSettled([...inFlight]);
      await recordDelivered();
      await listening;
      await listener?.close();
      sender.close();
    },
  };
}

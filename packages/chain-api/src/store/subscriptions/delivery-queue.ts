import type { Queryable } from '@sluice/db';
import type { WebhookType } from './webhook-watch.js';

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  chainId: number;
  blockNumber: bigint;
  removal: boolean;
  /** The items as stored (a JSON array). */
  items: string;
  itemCount: number;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  createdAt: Date;
  url: string;
  type: WebhookType;
  secret: string;
  /** The secret a rotation replaced, while its grace period lasts (signs a second header). */
  previousSecret: string | null;
}

interface ClaimRow {
  id: string;
  webhook_id: string;
  chain_id: number;
  block_number: string;
  removal: boolean;
  items: string;
  item_count: number;
  attempts: number;
  created_at: Date | string;
  url: string;
  type: WebhookType;
  secret: string;
  previous_secret: string | null;
}

const claimable = `((d.status = 'pending' and d.next_attempt_at <= now())
   or (d.status = 'sending' and d.claimed_until < now()))`;

/**
 * Whether the outbox holds any open (pending or sending) delivery: a probe of the open-deliveries
 * index, so an idle dispatcher's poll costs this instead of planning the claim (~1.5 ms).
 *
 * @example
 * if (await hasOpenDeliveries(db)) await claimDeliveries(db, 64, 30_000);
 */
export async function hasOpenDeliveries(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ open: boolean }>(
    `select exists (select 1 from webhook_deliveries where status in ('pending', 'sending')) as open`,
  );
  return rows[0]?.open === true;
}

/**
 * Claims up to `limit` due deliveries for one attempt each: per (webhook, chain) only the oldest
 * open delivery (so a webhook's deliveries go out strictly in chain order, a later one waiting for
 * an earlier one's success or final failure), of an active webhook, whose retry time has come and
 * whose block is `confirmations` deep; or one whose previous claim expired (a sender that died).
 * `for update skip locked` plus the re-checked condition make concurrent dispatchers (several
 * processes on one store) claim disjoint rows. The claim lasts `leaseMs`.
 *
 * @example
 * const batch = await claimDeliveries(db, 64, 30_000);
 */
export async function claimDeliveries(
  db: Queryable,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimRow>(
    // Each queue's head through the open-deliveries index, not a sort of every open row: the
    // queues (webhook, chain) are walked by a loose index scan, then one probe finds each head, so
    // a claim costs about the number of queues, however deep a backlog (a dead receiver's, say).
    // The heads carry only the columns tested here (not the items).
    `with recursive queues as (
       (select d.webhook_id, d.chain_id from webhook_deliveries d
         where d.status in ('pending', 'sending')
         order by d.webhook_id, d.chain_id limit 1)
       union all
       select n.webhook_id, n.chain_id from queues q
        cross join lateral (
          select d.webhook_id, d.chain_id from webhook_deliveries d
           where d.status in ('pending', 'sending')
             and (d.webhook_id, d.chain_id) > (q.webhook_id, q.chain_id)
           order by d.webhook_id, d.chain_id limit 1) n
     ), heads as (
       select h.* from queues q
        cross join lateral (
          select d.id, d.webhook_id, d.chain_id, d.seq, d.block_number, d.removal, d.status,
                 d.next_attempt_at, d.claimed_until
            from webhook_deliveries d
           where d.webhook_id = q.webhook_id and d.chain_id = q.chain_id
             and d.status in ('pending', 'sending') and not d.superseded
           order by d.seq limit 1) h
     ), due as (
       select d.id from heads d
         join webhooks w on w.id = d.webhook_id
         left join checkpoints c on c.chain_id = d.chain_id
        where w.active and ${claimable}
          and (d.removal or w.confirmations = 0
               or coalesce(c.indexed_block, -1) >= d.block_number + w.confirmations)
        order by d.seq
        limit $1
     ), locked as (
       select d.id from webhook_deliveries d
        where d.id in (select id from due) and not d.superseded and ${claimable}
        for update skip locked
     )
     update webhook_deliveries d
        set status = 'sending', attempts = d.attempts + 1,
            claimed_until = now() + make_interval(secs => $2::double precision / 1000),
            first_sent_at = coalesce(d.first_sent_at, now()), updated_at = now()
       from locked l, webhooks w
      where d.id = l.id and w.id = d.webhook_id
     returning d.id, d.webhook_id, d.chain_id, d.block_number::text as block_number, d.removal,
               d.items::text as items, d.item_count, d.attempts, d.created_at, w.url, w.type, w.secret,
               case when w.previous_secret_expires_at > now() then w.previous_secret end
                 as previous_secret`,
    [limit, leaseMs],
  );
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhook_id,
    chainId: Number(r.chain_id),
    blockNumber: BigInt(r.block_number),
    removal: r.removal,
    items: r.items,
    itemCount: Number(r.item_count),
    attempt: Number(r.attempts),
    createdAt: new Date(r.created_at),
    url: r.url,
    type: r.type,
    secret: r.secret,
    previousSecret: r.previous_secret,
  }));
}

/** A 2xx answer to one claimed attempt, to be recorded. */
export interface DeliveredAttempt {
  id: string;
  webhookId: string;
  attempt: number;
  /** The receiver's status. */
  status: number;
}

/**
 * Records 2xx answers in one statement (a dispatcher gathers the answers that arrived while it
 * was busy): each delivery becomes `delivered` unless its claim was lost to another sender meanwhile
 * (expired and claimed again: a different attempt number), and the webhooks' failing streaks are
 * cleared. Returns the ids actually recorded, so work done once per delivery (counters, charging)
 * is done for exactly those.
 *
 * @example
 * const recorded = await markDeliveredMany(db, [{ id, webhookId, attempt: 1, status: 200 }]);
 */
export async function markDeliveredMany(
  db: Queryable,
  answers: readonly DeliveredAttempt[],
): Promise<Set<string>> {
  if (answers.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    `with done as (
       update webhook_deliveries d
          set status = 'delivered', last_status = u.status, last_error = null, claimed_until = null,
              delivered_at = now(), updated_at = now()
         from unnest($1::uuid[], $2::int[], $3::int[]) as u (id, attempt, status)
        where d.id = u.id and d.status = 'sending' and d.attempts = u.attempt
        returning d.id, d.webhook_id
     ), cleared as (
       update webhooks w set failing_since = null
        where w.id in (select webhook_id from done) and w.failing_since is not null
     )
     select id from done`,
    [answers.map((a) => a.id), answers.map((a) => a.attempt), answers.map((a) => a.status)],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Records a 2xx answer to attempt `attempt` (ignored when the claim was lost to another sender)
 * and clears the webhook's failing streak. True when recorded.
 *
 * @example
 * await markDelivered(db, claimed, 200);
 */
export async function markDelivered(
  db: Queryable,
  delivery: Pick<ClaimedDelivery, 'id' | 'webhookId' | 'attempt'>,
  status: number,
): Promise<boolean> {
  const recorded = await markDeliveredMany(db, [{ ...delivery, status }]);
  return recorded.has(delivery.id);
}

/** What a failed attempt leads to. */
export interface FailureOutcome {
  /** The delivery will not be retried (retries exhausted, or its block was replaced). */
  final: boolean;
  /** The webhook was switched off by this failure (failing for `disableAfterMs` straight). */
  disabled: boolean;
}

/**
 * Records a failed attempt: retried after `retryDelayMs`, or `failed` when `retryDelayMs` is
 * undefined (no retries left); a delivery whose block was replaced meanwhile is `superseded`
 * instead. Starts (or continues) the webhook's failing streak and switches the webhook off with
 * `disabled_reason` once it has failed for `disableAfterMs` straight.
 *
 * @example
 * await markFailed(db, claimed, { status: 503, error: 'HTTP 503', retryDelayMs: 60_000, disableAfterMs: 86_400_000 });
 */
export async function markFailed(
  db: Queryable,
  delivery: Pick<ClaimedDelivery, 'id' | 'webhookId' | 'attempt'>,
  failure: {
    status: number | null;
    error: string;
    retryDelayMs: number | undefined;
    disableAfterMs: number;
  },
): Promise<FailureOutcome> {
  const { rows } = await db.query<{ status: string }>(
    `update webhook_deliveries
        set status = case when superseded then 'superseded'
                          when $3::double precision is null then 'failed' else 'pending' end,
            next_attempt_at = now() + make_interval(secs => coalesce($3::double precision, 0) / 1000),
            last_status = $4, last_error = $5, claimed_until = null, updated_at = now()
      where id = $1 and status = 'sending' and attempts = $2
      returning status`,
    [delivery.id, delivery.attempt, failure.retryDelayMs ?? null, failure.status, failure.error],
  );
  const { rows: hooks } = await db.query<{ disabled: boolean }>(
    `update webhooks w
        set failing_since = coalesce(w.failing_since, now()),
            active = w.active and not (coalesce(w.failing_since, now()) <= now() - make_interval(secs => $2::double precision / 1000)),
            disabled_reason = case
              when w.active and coalesce(w.failing_since, now()) <= now() - make_interval(secs => $2::double precision / 1000)
              then $3 else w.disabled_reason end,
            updated_at = now()
      where w.id = $1
      returning (not w.active and w.disabled_reason = $3) as disabled`,
    [
      delivery.webhookId,
      failure.disableAfterMs,
      `deliveries failing for ${Math.round(failure.disableAfterMs / 3_600_000)} h (last: ${failure.error})`,
    ],
  );
  const status = rows[0]?.status;
  return { final: status !== 'pending', disabled: hooks[0]?.disabled === true };
}

/**
 * Puts a delivered or failed delivery of `webhookId` back in its webhook's queue (same id, same
 * place in chain order, a fresh retry schedule). False when no such delivery can be redelivered
 * (none, still open, or of a block a reorg replaced: its removal was sent instead).
 *
 * @example
 * await requeueDelivery(db, webhookId, deliveryId);
 */
export async function requeueDelivery(
  db: Queryable,
  webhookId: string,
  deliveryId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update webhook_deliveries
        set status = 'pending', attempts = 0, next_attempt_at = now(), claimed_until = null,
            updated_at = now()
      where id = $2 and webhook_id = $1 and status in ('delivered', 'failed') and not superseded`,
    [webhookId, deliveryId],
  );
  return rowCount > 0;
}

/**
 * Deletes finished deliveries (delivered, failed, superseded) created more than `olderThanMs`
 * ago, at most `limit` per call. Returns how many went.
 *
 * @example
 * await pruneDeliveries(db, 7 * 86_400_000, 10_000);
 */
export async function pruneDeliveries(
  db: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<number> {
  const { rowCount } = await db.query(
    `delete from webhook_deliveries where id in (
       select id from webhook_deliveries
        where status in ('delivered', 'failed', 'superseded')
          and created_at < now() - make_interval(secs => $1::double precision / 1000)
        limit $2)`,
    [olderThanMs, limit],
  );
  return rowCount;
}

import type { Queryable } from '@sluice/db';
import type { TransactionalDb } from './webhook-row.js';

/** Outcome of an address change: the list's size afterwards, or why nothing changed. */
export type AddressChange =
  | { status: 'changed'; count: number }
  | { status: 'not-found' }
  /** The list would exceed the cap; nothing was written. */
  | { status: 'over-cap'; count: number };

/**
 * Locks the key's webhook row for the rest of the transaction, so concurrent changes of one
 * list apply one after the other (each counts what the previous one left). False: no such webhook.
 */
async function lockWebhook(tx: Queryable, id: string, keyId: string): Promise<boolean> {
  const { rows } = await tx.query(
    'select 1 from webhooks where id = $1::uuid and key_id = $2 for update',
    [id, keyId],
  );
  return rows.length > 0;
}

async function addAddresses(tx: Queryable, id: string, addresses: readonly string[]) {
  if (addresses.length === 0) return;
  await tx.query(
    `insert into webhook_addresses (webhook_id, address)
     select $1::uuid, a from unnest($2::text[]) as a
     on conflict do nothing`,
    [id, addresses],
  );
}

async function touchWebhook(tx: Queryable, id: string) {
  await tx.query('update webhooks set updated_at = now() where id = $1::uuid', [id]);
}

/**
 * Makes the key's webhook watch exactly `addresses` (lower-case, distinct, at most the cap the
 * caller enforces): deletes the others and inserts the new ones, each as one statement.
 *
 * @example
 * await replaceWebhookAddresses(db, id, keyId, ['0xabc…']); // 'changed'
 */
export async function replaceWebhookAddresses(
  db: TransactionalDb,
  id: string,
  keyId: string,
  addresses: readonly string[],
): Promise<AddressChange> {
  return db.transaction(async (tx) => {
    if (!(await lockWebhook(tx, id, keyId))) return { status: 'not-found' };
    await tx.query(
      `delete from webhook_addresses w
       where w.webhook_id = $1::uuid
         and not exists (select 1 from unnest($2::text[]) as n(a) where n.a = w.address)`,
      [id, addresses],
    );
    await addAddresses(tx, id, addresses);
    await touchWebhook(tx, id);
    return { status: 'changed', count: addresses.length };
  });
}

/**
 * Removes `remove` from and adds `add` to the key's webhook list, unless the list would then
 * hold more than `cap` addresses (then nothing changes and `over-cap` tells the size it would
 * have had).
 *
 * @example
 * await changeWebhookAddresses(db, id, keyId, { add: ['0xabc…'], remove: [] }, 10_000);
 */
export async function changeWebhookAddresses(
  db: TransactionalDb,
  id: string,
  keyId: string,
  change: { add: readonly string[]; remove: readonly string[] },
  cap: number,
): Promise<AddressChange> {
  return db.transaction(async (tx) => {
    if (!(await lockWebhook(tx, id, keyId))) return { status: 'not-found' };
    const { rows } = await tx.query<{ n: number }>(
      `select count(*)::int as n from (
         (select address from webhook_addresses where webhook_id = $1::uuid
          except select unnest($2::text[]))
         union select unnest($3::text[])
       ) as s`,
      [id, change.remove, change.add],
    );
    const count = Number(rows[0]?.n ?? 0);
    if (count > cap) return { status: 'over-cap', count };
    if (change.remove.length > 0) {
      await tx.query(
        `delete from webhook_addresses
         where webhook_id = $1::uuid and address in (select unnest($2::text[]))`,
        [id, change.remove],
      );
    }
    await addAddresses(tx, id, change.add);
    await touchWebhook(tx, id);
    return { status: 'changed', count };
  });
}

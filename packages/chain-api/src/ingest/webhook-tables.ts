import type { Database } from '@sluice/db';
import { hasWebhookTables } from '../store/subscriptions/queue-deliveries.js';

const webhookTables = new WeakMap<Database, Promise<boolean>>();

/**
 * Whether the store has webhooks to queue for, asked once per database (forgotten on failure).
 *
 * @example
 * if (await webhooksIn(db)) await watchBatch(tx, chainId, batch);
 */
export function webhooksIn(db: Database): Promise<boolean> {
  let known = webhookTables.get(db);
  if (!known) {
    known = hasWebhookTables(db);
    known.catch(() => webhookTables.delete(db));
    webhookTables.set(db, known);
  }
  return known;
}

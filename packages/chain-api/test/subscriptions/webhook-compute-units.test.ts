import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playRandomOps } from '../indexer/random-workload.js';
import { startWebhookDevnet, type WebhookDevnet } from '../support/webhook-devnet.js';
import { insertWebhook, startReceiver, type TestReceiver, waitFor } from '../support/webhooks.js';

// Deliveries cost their owner 2 compute units per event, charged when acknowledged; an exhausted
// quota holds the webhook's queue (nothing dropped) until the quota is raised.
let net: WebhookDevnet;
let receiver: TestReceiver;
const secrets = new Map<string, string>();
let hookId = '';

interface Row {
  id: string;
  status: string;
  item_count: number;
  last_error: string | null;
}

const deliveries = async () =>
  (
    await net.db.query<Row>(
      `select id, status, item_count, last_error from webhook_deliveries
        where webhook_id = $1 order by seq`,
      [hookId],
    )
  ).rows;

const usedUnits = async () => {
  const { rows } = await net.db.query<{ cu: string }>(
    'select coalesce(sum(compute_units), 0)::text as cu from api_key_usage where key_id = $1',
    [net.keyId],
  );
  return Number(rows[0]?.cu);
};

beforeAll(async () => {
  net = await startWebhookDevnet();
  receiver = await startReceiver(secrets);
  await net.index();
  const [a, b] = net.w.wallets as [string, string];
  const hook = await insertWebhook(net.db, {
    keyId: net.keyId,
    url: receiver.url,
    type: 'activities',
    addresses: [a, b],
  });
  secrets.set(hook.id, hook.secret);
  hookId = hook.id;
  await playRandomOps(net.anvil.rpcUrl, net.w, { seed: 7, ops: 12, perBlock: 2 });
  await net.index();
}, 120_000);

afterAll(async () => {
  await net?.close();
  await receiver?.close();
});

describe('compute units of deliveries', () => {
  it('holds the queue in order with a visible reason when the quota is exhausted, then resumes', async () => {
    const queued = await deliveries();
    expect(queued.length).toBeGreaterThan(2);
    // Room for the first delivery only.
    const first = 2 * queued[0]!.item_count;
    await net.db.query('update api_keys set cu_quota = $2 where id = $1', [net.keyId, first + 1]);
    net.dispatcher({}, { quotaRecheckMs: 100 });
    await waitFor(async () => {
      const rows = await deliveries();
      return rows[0]?.status === 'delivered' && (rows[1]?.last_error ?? '') !== '';
    }, 'first delivered, second held');
    const held = await deliveries();
    expect(held[1]!.status).toBe('pending');
    expect(held[1]!.last_error).toContain('compute unit quota exhausted');
    expect(held.slice(1).every((d) => d.status === 'pending')).toBe(true);
    expect(await usedUnits()).toBe(first);
    expect(receiver.received.filter((r) => r.webhookId === hookId).length).toBe(1);

    // Raised: everything goes out, in chain order, each event charged 2 units.
    await net.db.query('update api_keys set cu_quota = null where id = $1', [net.keyId]);
    await waitFor(
      async () => (await deliveries()).every((d) => d.status === 'delivered'),
      'all delivered',
    );
    const done = await deliveries();
    const got = receiver.received.filter((r) => r.webhookId === hookId && r.accepted);
    expect(got.map((r) => r.deliveryId)).toEqual(done.map((d) => d.id));
    const items = done.reduce((n, d) => n + d.item_count, 0);
    expect(await usedUnits()).toBe(2 * items);
    expect(done.every((d) => d.last_error === null)).toBe(true);
  }, 60_000);
});

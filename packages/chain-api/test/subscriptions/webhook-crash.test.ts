import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playRandomOps } from '../indexer/random-workload.js';
import { type CliProcess, startCli } from '../support/cli-process.js';
import { startWebhookDevnet, type WebhookDevnet } from '../support/webhook-devnet.js';
import {
  insertWebhook,
  itemsOf,
  startReceiver,
  type TestReceiver,
  waitFor,
} from '../support/webhooks.js';

// `serve` killed with SIGKILL mid-delivery loses nothing (PostgreSQL), several dispatchers (two in
// this process, one in the restarted serve) on one outbox never send a delivery twice, and the
// embedded PGlite store delivers too.
const running: CliProcess[] = [];
let net: WebhookDevnet;
let receiver: TestReceiver;
const secrets = new Map<string, string>();

/** `sluice-chain serve --no-index` on the test's store: the API and a webhook dispatcher. */
async function startServe(): Promise<CliProcess> {
  const serve = await startCli(
    ['serve', '--no-index'],
    {
      DATABASE_URL: net.t.url!,
      RPC_URL_31337: net.anvil.rpcUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100,100,100',
      WEBHOOK_POLL_MS: '20',
      WEBHOOK_CONCURRENCY: '8',
    },
    90_000,
  );
  running.push(serve);
  return serve;
}

async function openCount(): Promise<number> {
  const { rows } = await net.db.query<{ n: string }>(
    `select count(*) as n from webhook_deliveries where status <> 'delivered'`,
  );
  return Number(rows[0]?.n);
}

async function addHooks(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const h = await insertWebhook(net.db, {
      keyId: net.keyId,
      url: receiver.url,
      type: (['activities', 'transactions', 'balances'] as const)[i % 3]!,
      addresses: net.w.wallets.slice(0, 4),
    });
    secrets.set(h.id, h.secret);
    ids.push(h.id);
  }
  return ids;
}

/** Each delivery id always carried the same body; no item went out under two delivery ids. */
function expectDuplicatesOnlyBySameId(): void {
  const bodyOf = new Map<string, string>();
  for (const r of receiver.received) {
    const seen = bodyOf.get(r.deliveryId);
    if (seen !== undefined) expect(r.raw).toBe(seen);
    bodyOf.set(r.deliveryId, r.raw);
  }
  const itemKeys = new Map<string, string>();
  for (const r of receiver.received) {
    for (const item of itemsOf(r)) {
      const key = `${r.webhookId}|${JSON.stringify(item)}`;
      const owner = itemKeys.get(key);
      if (owner !== undefined) expect(owner).toBe(r.deliveryId);
      itemKeys.set(key, r.deliveryId);
    }
  }
}

beforeAll(async () => {
  net = await startWebhookDevnet();
  receiver = await startReceiver(secrets);
  await net.index();
}, 240_000);

afterAll(async () => {
  for (const serve of running) await serve.stop();
  await net?.close();
  await receiver?.close();
});

describe('webhook dispatcher processes', () => {
  it('loses nothing when serve is killed with SIGKILL mid-delivery', async () => {
    expect(net.t.url).toBeDefined();
    const ids = await addHooks(3);
    await playRandomOps(net.anvil.rpcUrl, net.w, { seed: 51, ops: 30, perBlock: 2 });
    await net.index();
    const { rows } = await net.db.query<{ id: string }>(
      'select id from webhook_deliveries where webhook_id = any($1::uuid[])',
      [ids],
    );
    expect(rows.length).toBeGreaterThan(10);
    receiver.delayMs = 150;
    const first = await startServe();
    await waitFor(() => receiver.received.length >= 4, 'some deliveries');
    // Hold the next answers long enough that the kill surely lands while one is in flight.
    receiver.delayMs = 5_000;
    await waitFor(() => receiver.inFlight > 0, 'a delivery in flight');
    first.child.kill('SIGKILL');
    await first.stop();
    receiver.delayMs = 0;
    await startServe();
    await waitFor(async () => (await openCount()) === 0, 'every delivery delivered', 120_000);
    // The kill hit deliveries in flight: they went out again, same id, next retry index.
    expect(receiver.received.some((r) => r.retryIndex > 0)).toBe(true);
    const got = new Set(receiver.received.filter((r) => r.accepted).map((r) => r.deliveryId));
    for (const { id } of rows) expect(got.has(id)).toBe(true);
    expectDuplicatesOnlyBySameId();
    // Per webhook, first arrivals follow the outbox order.
    const { rows: order } = await net.db.query<{ id: string; webhook_id: string }>(
      'select id, webhook_id from webhook_deliveries order by seq',
    );
    for (const hook of ids) {
      const expected = order.filter((o) => o.webhook_id === hook).map((o) => o.id);
      const firstSeen = [
        ...new Set(
          receiver.received
            .filter((r) => r.webhookId === hook && r.accepted)
            .map((r) => r.deliveryId),
        ),
      ];
      expect(firstSeen).toEqual(expected);
    }
  }, 180_000);

  it('several dispatchers on one outbox send each delivery once', async () => {
    receiver.received.length = 0;
    await addHooks(6);
    const one = net.dispatcher({ concurrency: 4 });
    const two = net.dispatcher({ concurrency: 4 });
    await playRandomOps(net.anvil.rpcUrl, net.w, { seed: 52, ops: 30, perBlock: 2 });
    await net.index();
    await waitFor(async () => (await openCount()) === 0, 'every delivery delivered', 120_000);
    const ids = receiver.received.map((r) => r.deliveryId);
    expect(ids.length).toBeGreaterThan(10);
    expect(new Set(ids).size).toBe(ids.length);
    expect(one.counters().delivered + two.counters().delivered).toBeGreaterThan(0);
  }, 180_000);
});

describe('embedded PGlite store', () => {
  it('queues in the batch transaction and delivers', async () => {
    const lite = await startWebhookDevnet('pglite');
    try {
      await lite.index();
      const h = await insertWebhook(lite.db, {
        keyId: lite.keyId,
        url: receiver.url,
        type: 'transactions',
        addresses: lite.w.wallets.slice(0, 3),
      });
      secrets.set(h.id, h.secret);
      lite.dispatcher({});
      await playRandomOps(lite.anvil.rpcUrl, lite.w, { seed: 53, ops: 12, perBlock: 2 });
      await lite.index();
      await waitFor(async () => {
        const { rows } = await lite.db.query<{ open: string; total: string }>(
          `select count(*) filter (where status <> 'delivered') as open, count(*) as total
             from webhook_deliveries`,
        );
        return rows[0]?.open === '0' && Number(rows[0]?.total) > 0;
      }, 'PGlite deliveries delivered');
      expect(receiver.received.some((r) => r.webhookId === h.id)).toBe(true);
    } finally {
      await lite.close();
    }
  }, 240_000);
});

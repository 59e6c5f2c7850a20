import { createServer } from 'node:http';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../src/keys/key-store.js';
import { rpcCall, send } from '../indexer/random-workload.js';
import { startWebhookDevnet, type WebhookDevnet } from '../support/webhook-devnet.js';
import {
  insertWebhook,
  itemsOf,
  startReceiver,
  type TestReceiver,
  waitFor,
} from '../support/webhooks.js';

// Receivers that fail, come back, never come back, sit on a private address, and reorgs.
let net: WebhookDevnet;
let receiver: TestReceiver;
const secrets = new Map<string, string>();

/** Mines one block per value: a native send a -> b of that many wei. */
async function mineSends(values: readonly bigint[]): Promise<void> {
  const [a, b] = net.w.wallets as [Hex, Hex];
  await rpcCall(net.anvil.rpcUrl, 'evm_setAutomine', [false]);
  for (const v of values) {
    await send(net.anvil.rpcUrl, a, b, '0x', v);
    await rpcCall(net.anvil.rpcUrl, 'evm_mine');
  }
  await rpcCall(net.anvil.rpcUrl, 'evm_setAutomine', [true]);
}

async function hook(
  spec: Partial<Parameters<typeof insertWebhook>[1]> & { addresses?: string[] } = {},
): Promise<string> {
  const [a] = net.w.wallets as [string];
  const h = await insertWebhook(net.db, {
    keyId: net.keyId,
    url: receiver.url,
    type: 'activities',
    addresses: [a],
    ...spec,
  });
  secrets.set(h.id, h.secret);
  return h.id;
}

async function statuses(webhookId: string): Promise<string[]> {
  const { rows } = await net.db.query<{ status: string }>(
    'select status from webhook_deliveries where webhook_id = $1 order by seq',
    [webhookId],
  );
  return rows.map((r) => r.status);
}

beforeAll(async () => {
  net = await startWebhookDevnet();
  receiver = await startReceiver(secrets);
  await net.index();
}, 240_000);

afterAll(async () => {
  await net?.close();
  await receiver?.close();
});

describe('webhook retries, ordering, reorgs and SSRF', () => {
  it('a receiver down then back gets every delivery, in order, retry index counting', async () => {
    const id = await hook();
    receiver.answer = (r) => (r.webhookId === id ? 503 : 200);
    const dispatcher = net.dispatcher({ retryScheduleMs: [150, 150, 150, 150, 150, 150, 150] });
    await mineSends([11n, 12n, 13n]);
    await net.index();
    await waitFor(
      () => receiver.received.some((r) => r.webhookId === id && r.retryIndex >= 2),
      'retries',
    );
    // While the first delivery fails, the later ones wait: nothing but the first was attempted.
    const tried = new Set(
      receiver.received.filter((r) => r.webhookId === id).map((r) => r.deliveryId),
    );
    expect(tried.size).toBe(1);
    receiver.answer = 200;
    await waitFor(
      async () => (await statuses(id)).every((s) => s === 'delivered'),
      'all delivered',
    );
    const mine = receiver.received.filter((r) => r.webhookId === id);
    const first = mine[0]!.deliveryId;
    expect(mine.filter((r) => r.deliveryId === first).map((r) => r.retryIndex)).toEqual(
      mine.filter((r) => r.deliveryId === first).map((_, i) => i),
    );
    const accepted = mine.filter((r) => r.accepted);
    expect(accepted.map((r) => itemsOf(r)[0]!.value)).toEqual(['11', '12', '13']);
    expect(accepted.map((r) => r.deliveryId)).toHaveLength(
      new Set(accepted.map((r) => r.deliveryId)).size,
    );
    const health = await fetch(`${net.apiUrl}/health`).then(
      (r) => r.json() as Promise<Record<string, unknown>>,
    );
    expect(health.webhooks).toMatchObject({ pending: 0, sending: 0 });
    await dispatcher.stop();
  });

  it('fails a delivery after the last retry and switches off a webhook failing too long', async () => {
    const id = await hook();
    receiver.answer = (r) => (r.webhookId === id ? 500 : 200);
    const dispatcher = net.dispatcher({ retryScheduleMs: [50, 50] }, { disableAfterMs: 400 });
    await mineSends([21n]);
    await net.index();
    await waitFor(async () => (await statuses(id))[0] === 'failed', 'final failure');
    expect(receiver.received.filter((r) => r.webhookId === id).map((r) => r.retryIndex)).toEqual([
      0, 1, 2,
    ]);
    await new Promise((r) => setTimeout(r, 450));
    await mineSends([22n]);
    await net.index();
    await waitFor(async () => {
      const { rows } = await net.db.query<{ active: boolean; disabled_reason: string | null }>(
        'select active, disabled_reason from webhooks where id = $1',
        [id],
      );
      return rows[0]?.active === false && /failing/.test(rows[0]?.disabled_reason ?? '');
    }, 'webhook disabled');
    const { rows } = await net.db.query<{ last_error: string; last_status: number }>(
      'select last_error, last_status from webhook_deliveries where webhook_id = $1 order by seq limit 1',
      [id],
    );
    expect(rows[0]).toMatchObject({
      last_status: 500,
      last_error: 'WEBHOOK_HTTP_STATUS: HTTP 500',
    });
    receiver.answer = 200;
    await dispatcher.stop();
  });

  it('refuses at connect time a host that resolves to a private address', async () => {
    const evil = await hook({ url: `http://evil.test:${receiver.port}/hook` });
    const literal = await hook({ url: 'http://10.1.2.3/hook' });
    const allowed = await hook({ url: `http://good.test:${receiver.port}/hook` });
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const dispatcher = net.dispatcher(
      { allowHosts: ['127.0.0.1', `good.test:${receiver.port}`], retryScheduleMs: [60_000] },
      { resolve },
    );
    await mineSends([31n]);
    await net.index();
    await waitFor(
      async () => (await statuses(allowed))[0] === 'delivered',
      'allowed host delivered',
    );
    for (const id of [evil, literal]) {
      await waitFor(async () => {
        const { rows } = await net.db.query<{ last_error: string | null }>(
          'select last_error from webhook_deliveries where webhook_id = $1',
          [id],
        );
        return (rows[0]?.last_error ?? '').startsWith('WEBHOOK_BLOCKED_ADDRESS');
      }, 'blocked address recorded');
      expect(receiver.received.some((r) => r.webhookId === id)).toBe(false);
    }
    await dispatcher.stop();
  });

  it('lists deliveries to the owner only and redelivers with the same delivery id', async () => {
    const id = await hook();
    const dispatcher = net.dispatcher({});
    await mineSends([41n, 42n]);
    await net.index();
    await waitFor(async () => (await statuses(id)).join() === 'delivered,delivered', 'delivered');
    const headers = { 'x-sim-api-key': net.key };
    const res = await fetch(
      `${net.apiUrl}/beta/evm/subscriptions/webhooks/${id}/deliveries?limit=1`,
      { headers },
    );
    expect(res.status).toBe(200);
    const page = (await res.json()) as {
      deliveries: Record<string, unknown>[];
      next_offset: number | null;
    };
    expect(page.deliveries).toHaveLength(1);
    expect(page.next_offset).toBe(1);
    expect(page.deliveries[0]).toMatchObject({
      status: 'delivered',
      attempts: 1,
      items: 1,
      removed: false,
    });
    const newest = page.deliveries[0]!.id as string;
    const redo = await fetch(
      `${net.apiUrl}/beta/evm/subscriptions/webhooks/${id}/deliveries/${newest}/redeliver`,
      { method: 'POST', headers },
    );
    expect(redo.status).toBe(202);
    await waitFor(
      () => receiver.received.filter((r) => r.deliveryId === newest).length === 2,
      'redelivered',
    );
    // Another key's webhook, an unknown one and a malformed id.
    const otherKey = await createKeyStore(net.db).create({ name: 'someone else' });
    const other = await insertWebhook(net.db, {
      keyId: otherKey.record.id,
      url: receiver.url,
      type: 'activities',
      addresses: ['0x0000000000000000000000000000000000000001'],
    });
    for (const path of [other.id, '00000000-0000-4000-8000-000000000000']) {
      const r = await fetch(`${net.apiUrl}/beta/evm/subscriptions/webhooks/${path}/deliveries`, {
        headers,
      });
      expect(r.status).toBe(404);
    }
    expect(
      (await fetch(`${net.apiUrl}/beta/evm/subscriptions/webhooks/nope/deliveries`, { headers }))
        .status,
    ).toBe(400);
    expect(
      (await fetch(`${net.apiUrl}/beta/evm/subscriptions/webhooks/${id}/deliveries`)).status,
    ).toBe(401);
    await dispatcher.stop();
  });

  it('after a reorg sends removed items for delivered blocks, then the new branch', async () => {
    const id = await hook();
    const dispatcher = net.dispatcher({});
    const snap = await rpcCall<string>(net.anvil.rpcUrl, 'evm_snapshot');
    await mineSends([51n]);
    await net.index();
    await waitFor(
      async () => (await statuses(id)).join() === 'delivered',
      'first branch delivered',
    );
    await rpcCall(net.anvil.rpcUrl, 'evm_revert', [snap]);
    await mineSends([52n, 53n]);
    await net.index();
    await waitFor(
      async () => (await statuses(id)).filter((s) => s === 'delivered').length === 4,
      'reorg delivered',
    );
    const items = receiver.received
      .filter((r) => r.webhookId === id && r.accepted)
      .flatMap(itemsOf);
    expect(items.map((i) => [i.value, i.removed ?? false])).toEqual([
      ['51', false],
      ['51', true],
      ['52', false],
      ['53', false],
    ]);
    const [sent, removed] = items;
    expect({ ...removed, removed: undefined }).toEqual({ ...sent, removed: undefined });
    await dispatcher.stop();
  });

  it('holds deliveries until the confirmations, and a shallower reorg is never seen', async () => {
    const [a] = net.w.wallets as [string];
    const deep = await hook({ confirmations: 2 });
    const head0 = await hook();
    const dispatcher = net.dispatcher({});
    const snap = await rpcCall<string>(net.anvil.rpcUrl, 'evm_snapshot');
    await mineSends([61n]);
    await net.index();
    // The head webhook's delivery of that block went out; in the same claim the deep one was not due.
    await waitFor(async () => (await statuses(head0)).join() === 'delivered', 'head delivery');
    const { rows } = await net.db.query<{ status: string; attempts: number }>(
      'select status, attempts from webhook_deliveries where webhook_id = $1',
      [deep],
    );
    expect(rows).toEqual([{ status: 'pending', attempts: 0 }]);
    // Replaced within the confirmation window: the deep webhook never hears of 61.
    await rpcCall(net.anvil.rpcUrl, 'evm_revert', [snap]);
    await mineSends([62n, 63n, 64n, 65n]);
    await net.index();
    // Head is 65's block: 62 and 63 are 2 deep, 64 and 65 are not yet.
    await waitFor(
      async () => (await statuses(deep)).join() === 'delivered,delivered,pending,pending',
      'confirmed',
    );
    await waitFor(async () => (await statuses(head0)).every((x) => x === 'delivered'), 'head');
    const deepItems = receiver.received.filter((r) => r.webhookId === deep).flatMap(itemsOf);
    expect(deepItems.map((i) => [i.value, i.removed ?? false])).toEqual([
      ['62', false],
      ['63', false],
    ]);
    const headItems = receiver.received.filter((r) => r.webhookId === head0).flatMap(itemsOf);
    expect(headItems.map((i) => [i.value, i.removed ?? false])).toEqual([
      ['61', false],
      ['61', true],
      ['62', false],
      ['63', false],
      ['64', false],
      ['65', false],
    ]);
    expect(deepItems.every((i) => i.address === a)).toBe(true);
    await dispatcher.stop();
  }, 120_000);

  it('a receiver that never answers holds back only its own webhook', async () => {
    const hanging = createServer(() => {});
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const port = (hanging.address() as { port: number }).port;
    const stuck = await hook({ url: `http://127.0.0.1:${port}/hook` });
    const healthy = await hook();
    const dispatcher = net.dispatcher({}, { timeoutMs: 120_000 });
    try {
      await mineSends([71n, 72n, 73n]);
      await net.index();
      await waitFor(
        async () => (await statuses(healthy)).join() === 'delivered,delivered,delivered',
        'the healthy webhook delivered',
      );
      expect(await statuses(stuck)).toEqual(['sending', 'pending', 'pending']);
    } finally {
      hanging.closeAllConnections();
      hanging.close();
      await dispatcher.stop();
    }
  });
});

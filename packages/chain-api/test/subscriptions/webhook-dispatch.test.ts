import { migrate } from '@sluice/db';
import { createTestDatabase, type TestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../src/keys/key-store.js';
import { storeMigrations } from '../../src/store/migrations.js';
import {
  claimDeliveries,
  markDeliveredMany,
} from '../../src/store/subscriptions/delivery-queue.js';
import { notifyOutbox } from '../../src/store/subscriptions/queue-deliveries.js';
import { type Dispatcher, startDispatcher } from '../../src/subscriptions/dispatcher.js';
import { insertWebhook, startReceiver, type TestReceiver, waitFor } from '../support/webhooks.js';

// The dispatcher's batching (many webhooks' heads per claim, answers recorded together) and its
// wake-up on a commit notice, on outbox rows written straight into the store (no chain needed).
let t: TestDatabase;
let keyId: string;
let receiver: TestReceiver;
const secrets = new Map<string, string>();
const running: Dispatcher[] = [];
const log = pino({ level: 'silent' });

function dispatcher(options: { concurrency: number; pollIntervalMs: number }): Dispatcher {
  const d = startDispatcher({
    db: t.db,
    log,
    config: {
      allowHosts: ['127.0.0.1'],
      retryScheduleMs: [50, 50],
      maxConnectionsPerHost: options.concurrency,
      ...options,
    },
  });
  running.push(d);
  return d;
}

async function addHooks(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const h = await insertWebhook(t.db, {
      keyId,
      url: receiver.url,
      type: 'activities',
      addresses: [`0x${String(i).padStart(40, '0')}`],
    });
    secrets.set(h.id, h.secret);
    ids.push(h.id);
  }
  return ids;
}

/** Queues `perHook` deliveries per webhook, interleaved across webhooks; returns their ids in order. */
async function queue(hooks: readonly string[], perHook: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < perHook; n++) {
    for (const hook of hooks) {
      const { rows } = await t.db.query<{ id: string }>(
        `insert into webhook_deliveries (webhook_id, chain_id, block_number, block_hash, items, item_count)
         values ($1, 31337, $2, '0x00', $3::jsonb, 1) returning id`,
        [hook, 100 + n, JSON.stringify([{ n }])],
      );
      ids.push(rows[0]!.id);
    }
  }
  return ids;
}

async function openCount(): Promise<number> {
  const { rows } = await t.db.query<{ n: string }>(
    `select count(*) as n from webhook_deliveries where status in ('pending', 'sending')`,
  );
  return Number(rows[0]?.n);
}

beforeAll(async () => {
  t = await createTestDatabase();
  await migrate(t.db, storeMigrations);
  keyId = (await createKeyStore(t.db).create({ name: 'dispatch' })).record.id;
  receiver = await startReceiver(secrets);
}, 60_000);

afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
  receiver.received.length = 0;
  receiver.delayMs = 0;
  await t.db.query('delete from webhook_deliveries');
});

afterAll(async () => {
  await receiver?.close();
  await t?.drop();
});

describe('webhook dispatcher batching', () => {
  it('claims the head of many webhooks in one statement, never two of one webhook', async () => {
    const hooks = await addHooks(5);
    await queue(hooks, 3);
    const first = await claimDeliveries(t.db, 100, 60_000);
    expect(first.map((d) => d.webhookId).sort()).toEqual([...hooks].sort());
    expect(first.every((d) => d.blockNumber === 100n)).toBe(true);
    // Heads out, nothing else of those webhooks is claimable until they are recorded.
    expect(await claimDeliveries(t.db, 100, 60_000)).toEqual([]);
    const recorded = await markDeliveredMany(
      t.db,
      first.map((d) => ({ id: d.id, webhookId: d.webhookId, attempt: d.attempt, status: 200 })),
    );
    expect(recorded.size).toBe(5);
    const second = await claimDeliveries(t.db, 100, 60_000);
    expect(second.every((d) => d.blockNumber === 101n)).toBe(true);
    expect(second).toHaveLength(5);
  });

  it('records an answer only for the attempt that still holds the claim', async () => {
    const [hook] = await addHooks(1);
    await queue([hook!], 1);
    const [claimed] = await claimDeliveries(t.db, 1, 60_000);
    // The lease ran out and another sender claimed it again (attempt 2).
    await t.db.query(`update webhook_deliveries set claimed_until = now() - interval '1 s'`);
    const [again] = await claimDeliveries(t.db, 1, 60_000);
    expect(again?.attempt).toBe(2);
    const stale = await markDeliveredMany(t.db, [{ ...claimed!, status: 200 }]);
    expect(stale.size).toBe(0);
    const current = await markDeliveredMany(t.db, [{ ...again!, status: 200 }]);
    expect([...current]).toEqual([again!.id]);
  });

  it('an idle dispatcher polls with a probe of the outbox, not the claim; queued work still goes out', async () => {
    const statements: string[] = [];
    const counted: typeof t.db = {
      ...t.db,
      query: <Row>(sql: string, params?: unknown[]) => {
        statements.push(sql);
        return t.db.query<Row>(sql, params);
      },
    };
    const claims = () => statements.filter((sql) => sql.includes('with recursive queues')).length;
    running.push(
      startDispatcher({
        db: counted,
        log,
        config: {
          allowHosts: ['127.0.0.1'],
          retryScheduleMs: [50, 50],
          maxConnectionsPerHost: 4,
          concurrency: 4,
          pollIntervalMs: 20,
        },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(statements.filter((sql) => sql.includes('select exists')).length).toBeGreaterThan(5);
    expect(claims()).toBe(0);
    // Queued without a notice: the next poll's probe finds it and the claim sends it.
    const [hook] = await addHooks(1);
    const [id] = await queue([hook!], 1);
    await waitFor(async () => (await openCount()) === 0, 'the delivery delivered', 10_000);
    expect(receiver.received.map((r) => r.deliveryId)).toEqual([id]);
    expect(claims()).toBeGreaterThan(0);
  });

  it('sends each webhook its deliveries in queue order while many webhooks go out at once', async () => {
    const hooks = await addHooks(12);
    const ids = await queue(hooks, 6);
    receiver.delayMs = 5;
    const d = dispatcher({ concurrency: 8, pollIntervalMs: 20 });
    await waitFor(async () => (await openCount()) === 0, 'every delivery delivered', 30_000);
    for (const hook of hooks) {
      const expected = ids.filter((_, i) => hooks[i % hooks.length] === hook);
      const got = receiver.received.filter((r) => r.webhookId === hook).map((r) => r.deliveryId);
      expect(got).toEqual(expected);
    }
    expect(d.counters().delivered).toBe(ids.length);
    expect(d.counters().events_delivered).toBe(ids.length);
  });

  it('two dispatchers on one outbox never send a delivery twice', async () => {
    const hooks = await addHooks(20);
    const ids = await queue(hooks, 8);
    receiver.delayMs = 2;
    const one = dispatcher({ concurrency: 16, pollIntervalMs: 10 });
    const two = dispatcher({ concurrency: 16, pollIntervalMs: 10 });
    await waitFor(async () => (await openCount()) === 0, 'every delivery delivered', 30_000);
    const got = receiver.received.map((r) => r.deliveryId);
    expect(new Set(got).size).toBe(got.length);
    expect(got.sort()).toEqual([...ids].sort());
    expect(one.counters().delivered + two.counters().delivered).toBe(ids.length);
  });

  it('a commit notice delivers at once, without waiting for the poll', async () => {
    const [hook] = await addHooks(1);
    const d = dispatcher({ concurrency: 4, pollIntervalMs: 60_000 });
    // Let the first (idle) round pass: from here only the notice or a 60 s poll can wake it.
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await t.db.transaction(async (tx) => {
      await tx.query(
        `insert into webhook_deliveries (webhook_id, chain_id, block_number, block_hash, items, item_count)
         values ($1, 31337, 1, '0x00', '[{"n":1}]'::jsonb, 1)`,
        [hook],
      );
      await notifyOutbox(tx);
    });
    await waitFor(() => receiver.received.length === 1, 'the delivery', 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    await waitFor(() => d.counters().delivered === 1, 'the delivery recorded', 10_000);
  });
});

/**
 * The webhook outbox claim's plan and time with a deep backlog: N webhooks (default 1,000) with M
 * open deliveries each (default 12), then EXPLAIN ANALYZE of one claim of 64 and the mean time of
 * 20 claims (each rolled back, so every run sees the same backlog).
 *
 *   npx tsx bench/explain-claim.ts [--webhooks 1000] [--per-webhook 12]
 */
import { migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import { createKeyStore } from '../src/keys/key-store.js';
import { storeMigrations } from '../src/store/migrations.js';
import { claimDeliveries } from '../src/store/subscriptions/delivery-queue.js';
import { insertWebhook } from '../test/support/webhooks.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
}
const webhooks = arg('webhooks', 1_000);
const perWebhook = arg('per-webhook', 12);

const t = await createTestDatabase('postgres');
await migrate(t.db, storeMigrations);
const { record } = await createKeyStore(t.db).create({ name: 'explain' });
const ids: string[] = [];
for (let i = 0; i < webhooks; i++) {
  const h = await insertWebhook(t.db, {
    keyId: record.id,
    url: 'http://127.0.0.1:9/hook',
    type: 'activities',
    addresses: [`0x${String(i).padStart(40, '0')}`],
  });
  ids.push(h.id);
}
const items = JSON.stringify(Array.from({ length: 3 }, (_, n) => ({ n, pad: 'x'.repeat(300) })));
for (let block = 0; block < perWebhook; block++) {
  await t.db.query(
    `insert into webhook_deliveries (webhook_id, chain_id, block_number, block_hash, items, item_count)
     select id, 1, $2, '0x00', $3::jsonb, 3 from unnest($1::uuid[]) as u (id)`,
    [ids, block, items],
  );
}
await t.db.query('analyze');
const original = (t.db as { query: typeof t.db.query }).query.bind(t.db);
let sql = '';
await claimDeliveries(
  {
    query: ((text: string, params?: unknown[]) => {
      sql = text;
      return original(text, params);
    }) as typeof t.db.query,
    exec: t.db.exec.bind(t.db),
  },
  64,
  60_000,
);
await t.db.query(`update webhook_deliveries set status = 'pending', attempts = 0`);
const plan = await t.db
  .transaction(async (tx) => {
    const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
      `explain (analyze, buffers) ${sql}`,
      [64, 60_000],
    );
    throw Object.assign(new Error('rollback'), { rows });
  })
  .catch((e: { rows?: { 'QUERY PLAN': string }[] }) => e.rows ?? []);
console.log(plan.map((r) => r['QUERY PLAN']).join('\n'));
let total = 0;
for (let i = 0; i < 20; i++) {
  await t.db
    .transaction(async (tx) => {
      const t0 = performance.now();
      await claimDeliveries(tx, 64, 60_000);
      total += performance.now() - t0;
      throw new Error('rollback');
    })
    .catch(() => {});
}
console.log(
  `${webhooks} webhooks x ${perWebhook} open: claim of 64 takes ${(total / 20).toFixed(1)} ms`,
);
await t.drop();
process.exit(0);

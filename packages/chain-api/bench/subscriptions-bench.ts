/**
 * Webhook delivery benchmark, in one run: N webhooks x M addresses (default 1,000 x 10) watch the
 * wallets of a workload on anvil while a block is mined every 250 ms with transfers between them;
 * each webhook watches two of the workload's active wallets (plus idle addresses), so every
 * active wallet is watched by `2 x webhooks / wallets` webhooks (20 by default) and the offered
 * event rate is about `transfers x 2 x that x 4` per second (640 by default). The latency goal is
 * for a load the receiver can take: `--wallets 20` (100 webhooks per wallet, ~3,200 events/s)
 * offers more than even the bare loop sends on 2 cores, and then the queue grows for both;
 * the indexer follows the head and the dispatcher sends the outbox to a local receiver. Reports
 * events delivered per second and p50/p99 latency from the batch transaction to the receiver's 2xx
 * (`delivered_at - created_at` of each delivery), then a bare loop POSTing the same bodies to the
 * same receiver at the same concurrency (the HTTP floor). The live run's events/s is capped by the
 * rate the blocks produce events, so the dispatcher's capacity is measured like the bare loop's: the
 * run's deliveries queued again all at once and drained (the `backlog drain` row).
 *
 *   npm run bench:subscriptions -w @sluice/chain-api -- [--webhooks 1000] [--addresses 10]
 *     [--wallets 100] [--transfers 4] [--seconds 30] [--block-ms 250] [--concurrency 64] [--pglite]
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { migrate } from '@sluice/db';
import { createTestDatabase } from '@sluice/db/testing';
import pino from 'pino';
import { encodeFunctionData, type Hex, parseAbi } from 'viem';
import { startAnvil } from '../src/devnet/index.js';
import { startIndexers } from '../src/ingest/index.js';
import { createKeyStore } from '../src/keys/key-store.js';
import { storeMigrations } from '../src/store/migrations.js';
import { startDispatcher } from '../src/subscriptions/dispatcher.js';
import { deployWorkload, rpcCall, send } from '../test/indexer/random-workload.js';
import { workloadChain } from '../test/indexer/workload-chain.js';
import { insertWebhook } from '../test/support/webhooks.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
}
const webhookCount = arg('webhooks', 1_000);
const addressCount = arg('addresses', 10);
const seconds = arg('seconds', 30);
const blockMs = arg('block-ms', 250);
const walletCount = arg('wallets', 100);
const transfersPerBlock = arg('transfers', 4);
const concurrency = arg('concurrency', 64);
const log = pino({ level: 'warn' });
const erc20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

// Receiver: answers 200 to everything, counting events (items) per body.
let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(200).end();
  });
});
// Idle connections stay open for the whole run on both sides (no keep-alive expiry race).
receiver.keepAliveTimeout = 120_000;
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const port = (receiver.address() as { port: number }).port;
const url = `http://127.0.0.1:${port}/hook`;

const anvil = await startAnvil();
const w = await deployWorkload(anvil.rpcUrl, walletCount, 61);
const t = await createTestDatabase(process.argv.includes('--pglite') ? 'pglite' : 'postgres');
await migrate(t.db, storeMigrations);
const { record } = await createKeyStore(t.db).create({ name: 'bench' });
// Each webhook watches one or two of the active wallets plus random addresses nobody touches.
for (let i = 0; i < webhookCount; i++) {
  const active = [w.wallets[i % w.wallets.length]!, w.wallets[(i * 7 + 3) % w.wallets.length]!];
  const idle = Array.from(
    { length: Math.max(0, addressCount - 2) },
    () => `0x${randomBytes(20).toString('hex')}`,
  );
  await insertWebhook(t.db, {
    keyId: record.id,
    url,
    type: (['balances', 'activities', 'transactions'] as const)[i % 3]!,
    addresses: [...active, ...idle],
  });
}

const chain = workloadChain(anvil.rpcUrl, w, { finalityDepth: 64 });
const indexers = await startIndexers({
  db: t.db,
  chains: [chain],
  log,
  pollIntervalMs: 25,
  batchSize: 1,
});
while (!indexers.status()[0]?.ready) await new Promise((r) => setTimeout(r, 50));
const { rows: startRows } = await t.db.query<{ n: string }>(
  'select coalesce(max(seq), 0) as n from webhook_deliveries',
);
const startSeq = Number(startRows[0]?.n ?? 0);
// Both sides run `concurrency` requests at once over as many keep-alive connections.
const dispatch = () =>
  startDispatcher({
    db: t.db,
    log,
    config: {
      allowHosts: ['127.0.0.1'],
      retryScheduleMs: [1000],
      pollIntervalMs: 20,
      concurrency,
      maxConnectionsPerHost: concurrency,
    },
  });
const dispatcher = dispatch();
// The workload's setup (mints to every wallet) queued deliveries for every webhook before the
// run: sent first (each webhook's deliveries go out in chain order), they would delay the run's
// first seconds. They are drained before the measured blocks start.
const setupDeadline = Date.now() + 120_000;
for (;;) {
  const { rows: open } = await t.db.query<{ n: string }>(
    `select count(*) as n from webhook_deliveries where status in ('pending', 'sending')`,
  );
  if (open[0]?.n === '0') break;
  if (Date.now() > setupDeadline) throw new Error('the setup deliveries were not drained in 120 s');
  await new Promise((r) => setTimeout(r, 50));
}

// Blocks every blockMs with a few transfers between the wallets.
await rpcCall(anvil.rpcUrl, 'evm_setAutomine', [false]);
const started = Date.now();
let blocks = 0;
while (Date.now() - started < seconds * 1000) {
  const tick = Date.now();
  for (let k = 0; k < transfersPerBlock; k++) {
    const a = w.wallets[(blocks * 3 + k) % w.wallets.length] as Hex;
    const b = w.wallets[(blocks * 5 + k + 1) % w.wallets.length] as Hex;
    if (k % 2 === 0) await send(anvil.rpcUrl, a, b, '0x', 1000n + BigInt(blocks));
    else {
      const data = encodeFunctionData({
        abi: erc20,
        functionName: 'transfer',
        args: [b, 10n ** 12n],
      });
      await send(anvil.rpcUrl, a, w.erc20[0] as Hex, data, 0n, 200_000n);
    }
  }
  await rpcCall(anvil.rpcUrl, 'evm_mine');
  blocks++;
  await new Promise((r) => setTimeout(r, Math.max(0, blockMs - (Date.now() - tick))));
}
const produced = Date.now();
// Drain: wait until everything queued so far is delivered (or 60 s).
while (Date.now() - produced < 60_000) {
  const { rows } = await t.db.query<{ n: string }>(
    `select count(*) as n from webhook_deliveries where status in ('pending', 'sending') and seq > $1`,
    [startSeq],
  );
  if (rows[0]?.n === '0') break;
  await new Promise((r) => setTimeout(r, 100));
}
const drained = Date.now();
await dispatcher.stop();
await indexers.stop();
const cpuLive = process.cpuUsage();

const { rows } = await t.db.query<{
  items: string;
  lat: number;
  created: number;
  delivered: number;
  body: string;
  url: string;
}>(
  `select d.item_count as items,
          extract(epoch from d.delivered_at - d.created_at) * 1000 as lat,
          extract(epoch from d.created_at) * 1000 as created,
          extract(epoch from d.delivered_at) * 1000 as delivered,
          d.items::text as body
     from webhook_deliveries d where d.seq > $1 and d.status = 'delivered'`,
  [startSeq],
);
const events = rows.reduce((s, r) => s + Number(r.items), 0);
const first = Math.min(...rows.map((r) => Number(r.created)));
const last = Math.max(...rows.map((r) => Number(r.delivered)));
const latencies = rows.map((r) => Number(r.lat));

// Capacity, as the bare loop measures it: the run's deliveries all queued again at once (same ids,
// bodies and webhooks, chain order per webhook), then drained by a fresh dispatcher. The live row's
// events/s cannot exceed the rate blocks produce events; this one can.
const { rows: resetRows } = await t.db.query<{ at: number }>(
  `with reset as (
     update webhook_deliveries
        set status = 'pending', attempts = 0, next_attempt_at = now(), delivered_at = null,
            first_sent_at = null
      where seq > $1 and status = 'delivered'
      returning 1)
   select extract(epoch from now()) * 1000 as at from reset limit 1`,
  [startSeq],
);
const replayStart = Number(resetRows[0]?.at ?? 0);
const cpuBeforeReplay = process.cpuUsage();
const replay = dispatch();
const replayDeadline = Date.now() + 120_000;
while (Date.now() < replayDeadline) {
  const { rows: open } = await t.db.query<{ n: string }>(
    `select count(*) as n from webhook_deliveries where status in ('pending', 'sending') and seq > $1`,
    [startSeq],
  );
  if (open[0]?.n === '0') break;
  await new Promise((r) => setTimeout(r, 50));
}
await replay.stop();
const cpuReplay = process.cpuUsage(cpuBeforeReplay);
const { rows: replayRows } = await t.db.query<{ last: number; n: string; events: string }>(
  `select extract(epoch from max(delivered_at)) * 1000 as last, count(*) as n,
          coalesce(sum(item_count), 0) as events
     from webhook_deliveries where seq > $1 and status = 'delivered'`,
  [startSeq],
);
const replaySeconds = (Number(replayRows[0]?.last) - replayStart) / 1000;

// The bare loop: the same bodies, POSTed with fetch at the same concurrency.
// Every delivery of the run (those the live run left undelivered were sent by the drain).
const { rows: all } = await t.db.query<{ body: string; items: number }>(
  `select items::text as body, item_count as items from webhook_deliveries
    where seq > $1 and status = 'delivered'`,
  [startSeq],
);
const bodies = all.map((r) => r.body);
const bareEvents = all.reduce((s, r) => s + Number(r.items), 0);
const bareLat: number[] = [];
let bareRetries = 0;
const bareStart = Date.now();
const cpuBeforeBare = process.cpuUsage();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const t0 = performance.now();
      // A reset connection is sent again, as the dispatcher does (a busy machine resets some).
      for (let tries = 1; ; tries++) {
        try {
          const res = await fetch(url, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
          });
          await res.arrayBuffer();
          break;
        } catch (error) {
          bareRetries++;
          if (tries >= 5) throw error;
        }
      }
      bareLat.push(performance.now() - t0);
    }
  }),
);
const bareSeconds = (Date.now() - bareStart) / 1000;
const cpuBare = process.cpuUsage(cpuBeforeBare);
const cpuMs = (u: NodeJS.CpuUsage) => Math.round((u.user + u.system) / 1000);

console.table([
  {
    run: 'sluice dispatcher',
    webhooks: webhookCount,
    addresses: webhookCount * addressCount,
    blocks,
    deliveries: rows.length,
    events,
    'events/s': Math.round(events / Math.max(0.001, (last - first) / 1000)),
    'p50 ms': Math.round(pct(latencies, 50)),
    'p99 ms': Math.round(pct(latencies, 99)),
    note: `commit→2xx; drained ${((drained - produced) / 1000).toFixed(1)} s after the last block`,
  },
  {
    run: 'sluice backlog drain',
    webhooks: webhookCount,
    addresses: '',
    blocks: '',
    deliveries: Number(replayRows[0]?.n),
    events: Number(replayRows[0]?.events),
    'events/s': Math.round(Number(replayRows[0]?.events) / Math.max(0.001, replaySeconds)),
    'p50 ms': '',
    'p99 ms': '',
    note: `all queued at once, drained in ${replaySeconds.toFixed(1)} s; process CPU ${cpuMs(cpuReplay)} ms`,
  },
  {
    run: 'bare POST loop',
    webhooks: '',
    addresses: '',
    blocks: '',
    deliveries: bodies.length,
    events: bareEvents,
    'events/s': Math.round(bareEvents / Math.max(0.001, bareSeconds)),
    'p50 ms': Math.round(pct(bareLat, 50)),
    'p99 ms': Math.round(pct(bareLat, 99)),
    note: `same bodies, receiver, concurrency (request→2xx); process CPU ${cpuMs(cpuBare)} ms; ${bareRetries} resent`,
  },
]);
// Latency over the run: a tail from the first seconds (start-up) differs from one that grows.
const slices = 6;
const span = (produced - started) / slices;
console.log(
  `commit→2xx by sixth of the live run (p50/p99/max ms): ${Array.from(
    { length: slices },
    (_, i) => {
      const lat = rows
        .filter((r) => Math.min(slices - 1, Math.floor((Number(r.created) - started) / span)) === i)
        .map((r) => Number(r.lat));
      return `${Math.round(pct(lat, 50))}/${Math.round(pct(lat, 99))}/${Math.round(Math.max(...lat))}`;
    },
  ).join(', ')}`,
);
const offered = bareEvents / ((produced - started) / 1000);
const bareRate = bareEvents / Math.max(0.001, bareSeconds);
console.log(
  `offered by the chain: ${Math.round(offered)} events/s (${Math.round((100 * offered) / bareRate)}% of the bare loop's rate); receiver got ${received} requests; process CPU during the live run ${cpuMs(cpuLive)} ms`,
);
receiver.close();
await t.drop();
await anvil.stop();
process.exit(0);

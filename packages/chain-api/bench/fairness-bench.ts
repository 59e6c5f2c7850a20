/**
 * Fairness benchmark: `npm run bench:fairness -w @sluice/chain-api`.
 *
 * Seeds PostgreSQL (TEST_DATABASE_URL, own schema) with the "unbounded work" triggers on chain
 * 31337: a wallet holding 10,000 never-priced tokens with a year of history and a 75,000-log
 * transaction, and a light wallet. One API key then runs the heaviest legal requests (past-block
 * balances with exclude_unpriced, a 365-day portfolio, transactions, 1,000-row pages) on 40
 * connections while another key reads balances on 10. Prints both keys' request counts,
 * failures and latencies; the goal is the second key's p99 under 100 ms with no error.
 *
 * FAIRNESS_SECONDS (default 20), FAIRNESS_SPAM_TOKENS (default 10000), FAIRNESS_LOGS (75000),
 * FAIRNESS_KEY_DB (KEY_DB_CONCURRENCY, default 4).
 */

import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { boundedReadDb } from '../src/api/limits/bounded-db.js';
import { pricingLookups } from '../src/cli/pricing-lookups.js';
import { createKeyStore } from '../src/keys/key-store.js';
import { startTestApi, testChains } from '../test/support/api-harness.js';
import { runFairness } from '../test/support/fairness-run.js';
import { seedHeavyStore } from '../test/support/heavy-wallet.js';

const seconds = Number(process.env.FAIRNESS_SECONDS ?? 20);
const spamTokens = Number(process.env.FAIRNESS_SPAM_TOKENS ?? 10_000);
const logs = Number(process.env.FAIRNESS_LOGS ?? 75_000);
const keyDbConcurrency = Number(process.env.FAIRNESS_KEY_DB ?? 4);

const chains = testChains();
// The API's production pool size (10) and per-key slots (KEY_DB_CONCURRENCY 4).
const api = await startTestApi({
  chains,
  poolMax: 10,
  limits: { keyDbConcurrency },
  pricingFrom: (db) => pricingLookups(boundedReadDb(db), chains),
});
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
try {
  const seeded = performance.now();
  const store = await seedHeavyStore(api.t.db, { spamTokens, days: 366, logs });
  const keys = createKeyStore(api.t.db);
  const heavyKey = (await keys.create({ name: 'heavy' })).key;
  const lightKey = (await keys.create({ name: 'light' })).key;
  console.log(
    `seeded ${spamTokens} spam tokens, ${logs} logs in ${Math.round(performance.now() - seeded)} ms; running ${seconds} s with KEY_DB_CONCURRENCY ${keyDbConcurrency}`,
  );
  loopDelay.enable();
  const { heavy, light } = await runFairness({
    url: api.url,
    heavyKey,
    lightKey,
    store,
    durationMs: seconds * 1000,
  });
  const row = (name: string, f: typeof light, extra = '') =>
    `${name.padEnd(24)} ${String(f.requests).padStart(7)} req  p50 ${String(f.p50).padStart(6)} ms  p99 ${String(f.p99).padStart(6)} ms  max ${String(f.max).padStart(6)} ms  ${extra}`;
  console.log(row('key 1 (heavy, 40 conn)', heavy, `statuses ${JSON.stringify(heavy.statuses)}`));
  console.log(
    row('key 2 (balances, 10 conn)', light, `failures ${JSON.stringify(light.failures)}`),
  );
  loopDelay.disable();
  console.log(
    `event loop delay (server and load generator share it): p50 ${Math.round(loopDelay.percentile(50) / 1e6)} ms, p99 ${Math.round(loopDelay.percentile(99) / 1e6)} ms, max ${Math.round(loopDelay.max / 1e6)} ms; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores`,
  );
  const ok = Object.keys(light.failures).length === 0 && light.p99 < 100;
  console.log(
    ok ? 'goal met: key 2 p99 < 100 ms, no errors' : 'goal NOT met (key 2 p99 >= 100 ms or errors)',
  );
} finally {
  await api.close();
}

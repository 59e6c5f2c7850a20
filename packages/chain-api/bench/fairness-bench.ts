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
 * The server runs in a process of its own (fairness-server.ts): its event loop is not shared
 * with the load generator's, so the figures are the server's. Before the heavy key starts, the
 * light key runs alone for a while (its unloaded figures, the baseline of the loaded ones).
 *
 * FAIRNESS_SECONDS (default 20), FAIRNESS_SPAM_TOKENS (default 10000), FAIRNESS_LOGS (75000),
 * FAIRNESS_KEY_DB (KEY_DB_CONCURRENCY, default 4), FAIRNESS_KEY_REQUESTS (KEY_REQUEST_CONCURRENCY,
 * default 8), FAIRNESS_PROFILE (a directory: the server
 * writes a CPU profile of the run there), FAIRNESS_CACHE (`on`, the default, as `serve` runs: a
 * 64 MiB response cache, which the heavy key's ever-different requests miss; `off`: every request
 * of both keys reaches the database).
 */

import { fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { runFairness } from '../test/support/fairness-run.js';
import { loop } from '../test/support/load-probe.js';
import type { ServerReady, ServerStats } from './fairness-server.js';

const seconds = Number(process.env.FAIRNESS_SECONDS ?? 20);
const keyDbConcurrency = Number(process.env.FAIRNESS_KEY_DB ?? 4);
const keyRequestConcurrency = Number(process.env.FAIRNESS_KEY_REQUESTS ?? 8);

const server = fork(new URL('./fairness-server.ts', import.meta.url).pathname, {
  execArgv: ['--import', 'tsx'],
  stdio: 'inherit',
});
const next = <T>(type: string) =>
  new Promise<T>((resolve, reject) => {
    const onMessage = (message: { type: string }) => {
      if (message.type !== type) return;
      server.off('message', onMessage);
      resolve(message as T);
    };
    server.on('message', onMessage);
    server.once('exit', (code) => reject(new Error(`fairness server exited (${code})`)));
  });
try {
  const ready = await next<ServerReady>('ready');
  const { url, heavyKey, lightKey, store } = ready;
  console.log(
    `seeded ${ready.spamTokens} spam tokens, ${ready.logs} logs in ${ready.seededMs} ms; running ${seconds} s, response cache ${process.env.FAIRNESS_CACHE === 'off' ? 'off' : 'on'}, KEY_DB_CONCURRENCY ${keyDbConcurrency}, KEY_REQUEST_CONCURRENCY ${keyRequestConcurrency}`,
  );
  const light = `/v1/evm/balances/${store.lightWallet}?chain_ids=${store.chainId}`;
  const aloneEnd = Date.now() + 3_000;
  const alone = await loop(url, lightKey, [light], 10, () => Date.now() >= aloneEnd);
  const load = loadavg();
  server.send({ type: 'start' });
  // Every heavy request differs from the others (200 forms of each), so the response cache
  // answers none of them: the heavy key costs what a caller set on defeating the cache costs.
  const durationMs = seconds * 1000;
  const run = await runFairness({ url, heavyKey, lightKey, store, durationMs, heavyVariants: 200 });
  const stats = next<ServerStats>('stats');
  server.send({ type: 'stop' });
  const { loopDelay, cpuMs } = await stats;
  const row = (name: string, f: typeof alone, extra = '') =>
    `${name.padEnd(26)} ${String(f.requests).padStart(6)} req  p50 ${String(f.p50).padStart(6)} ms  p99 ${String(f.p99).padStart(6)} ms  max ${String(f.max).padStart(6)} ms  ${extra}`;
  console.log(
    row('key 2 alone (3 s, 10 conn)', alone, `failures ${JSON.stringify(alone.failures)}`),
  );
  console.log(
    row('key 1 (heavy, 40 conn)', run.heavy, `statuses ${JSON.stringify(run.heavy.statuses)}`),
  );
  console.log(
    row('key 2 (balances, 10 conn)', run.light, `failures ${JSON.stringify(run.light.failures)}`),
  );
  const avg = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
  console.log(
    `server process: event loop delay p50 ${loopDelay.p50} ms, p99 ${loopDelay.p99} ms, max ${loopDelay.max} ms; CPU ${cpuMs} ms in ${seconds} s; load average ${avg(load)} before, ${avg(loadavg())} after, on ${availableParallelism()} cores`,
  );
  const ok = Object.keys(run.light.failures).length === 0 && run.light.p99 < 100;
  console.log(
    ok ? 'goal met: key 2 p99 < 100 ms, no errors' : 'goal NOT met (key 2 p99 >= 100 ms or errors)',
  );
} catch (error) {
  server.kill();
  throw error;
} finally {
  if (server.exitCode === null) await new Promise((resolve) => server.once('exit', resolve));
}

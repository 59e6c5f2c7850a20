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
 * The server runs in a process of its own (fairness-server.ts), and so does each key's client
 * (fairness-client.ts): the light key's latencies include neither the server's bookkeeping of the
 * run nor the heavy client's reading of its multi-megabyte answers. Before the heavy key starts, the
 * light key runs alone for a while (its unloaded figures, the baseline of the loaded ones).
 *
 * FAIRNESS_SECONDS (default 20), FAIRNESS_SPAM_TOKENS (default 10000), FAIRNESS_LOGS (75000),
 * FAIRNESS_KEY_DB (KEY_DB_CONCURRENCY), FAIRNESS_KEY_REQUESTS (KEY_REQUEST_CONCURRENCY)
 * (both default to the server's defaults), FAIRNESS_PROFILE (a directory: the server
 * writes a CPU profile of the run there), FAIRNESS_CACHE (`on`, the default, as `serve` runs: a
 * 64 MiB response cache, which the heavy key's ever-different requests miss; `off`: every request
 * of both keys reaches the database).
 */

import { type ChildProcess, fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { defaultRequestLimits } from '../src/config/request-limits-config.js';
import { type KeyLoop, lightPath, runFairness } from '../test/support/fairness-run.js';
import type { LoadFigures } from '../test/support/load-probe.js';
import type { ClientFigures, ClientRun } from './fairness-client.js';
import type { ServerReady, ServerStats } from './fairness-server.js';

const seconds = Number(process.env.FAIRNESS_SECONDS ?? 20);
const keyDbConcurrency = Number(
  process.env.FAIRNESS_KEY_DB ?? defaultRequestLimits.keyDbConcurrency,
);
const keyRequestConcurrency = Number(
  process.env.FAIRNESS_KEY_REQUESTS ?? defaultRequestLimits.keyRequestConcurrency,
);

const start = (file: string) =>
  fork(new URL(file, import.meta.url).pathname, {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
const next = <T>(child: ChildProcess, type: string) =>
  new Promise<T>((resolve, reject) => {
    const onMessage = (message: { type: string }) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`fairness child exited (${code})`)));
  });
// The server and each key's client run in processes of their own.
const server = start('./fairness-server.ts');
const heavyClient = start('./fairness-client.ts');
const lightClient = start('./fairness-client.ts');
const run = async (client: ChildProcess, loop: KeyLoop) => {
  const figures = next<ClientFigures>(client, 'figures');
  client.send({ type: 'run', ...loop } satisfies ClientRun);
  return (await figures).figures;
};
try {
  const ready = await next<ServerReady>(server, 'ready');
  const { url, heavyKey, lightKey, store } = ready;
  console.log(
    `seeded ${ready.spamTokens} spam tokens, ${ready.logs} logs in ${ready.seededMs} ms; running ${seconds} s, response cache ${process.env.FAIRNESS_CACHE === 'off' ? 'off' : 'on'}, KEY_DB_CONCURRENCY ${keyDbConcurrency}, KEY_REQUEST_CONCURRENCY ${keyRequestConcurrency}`,
  );
  const now = Date.now();
  const alone = await run(lightClient, {
    url,
    key: lightKey,
    paths: [lightPath(store)],
    connections: 10,
    startAt: now,
    endAt: now + 3_000,
  });
  const load = loadavg();
  server.send({ type: 'start' });
  // Every heavy request differs from the others (200 forms of each), so the response cache
  // answers none of them: the heavy key costs what a caller set on defeating the cache costs.
  const fairness = await runFairness({
    url,
    heavyKey,
    lightKey,
    store,
    durationMs: seconds * 1000,
    heavyVariants: 200,
    runner: (loop) => run(loop.key === heavyKey ? heavyClient : lightClient, loop),
  });
  const stats = next<ServerStats>(server, 'stats');
  server.send({ type: 'stop' });
  const { loopDelay, cpuMs } = await stats;
  const row = (name: string, f: LoadFigures, extra = '') =>
    `${name.padEnd(26)} ${String(f.requests).padStart(6)} req  p50 ${String(f.p50).padStart(6)} ms  p99 ${String(f.p99).padStart(6)} ms  max ${String(f.max).padStart(6)} ms  ${extra}`;
  console.log(
    row('key 2 alone (3 s, 10 conn)', alone, `failures ${JSON.stringify(alone.failures)}`),
  );
  console.log(
    row(
      'key 1 (heavy, 40 conn)',
      fairness.heavy,
      `statuses ${JSON.stringify(fairness.heavy.statuses)}`,
    ),
  );
  console.log(
    row(
      'key 2 (balances, 10 conn)',
      fairness.light,
      `failures ${JSON.stringify(fairness.light.failures)}`,
    ),
  );
  const avg = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
  console.log(
    `server process: event loop delay p50 ${loopDelay.p50} ms, p99 ${loopDelay.p99} ms, max ${loopDelay.max} ms; CPU ${cpuMs} ms in ${seconds} s; load average ${avg(load)} before, ${avg(loadavg())} after, on ${availableParallelism()} cores`,
  );
  const ok = Object.keys(fairness.light.failures).length === 0 && fairness.light.p99 < 100;
  console.log(
    ok ? 'goal met: key 2 p99 < 100 ms, no errors' : 'goal NOT met (key 2 p99 >= 100 ms or errors)',
  );
} catch (error) {
  server.kill();
  throw error;
} finally {
  for (const client of [heavyClient, lightClient]) {
    if (client.connected) client.send({ type: 'exit' });
  }
  for (const child of [server, heavyClient, lightClient]) {
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  }
}

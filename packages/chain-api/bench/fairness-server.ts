/**
 * The server side of `bench:fairness`, in a process of its own (forked by fairness-bench.ts) so
 * the load generator's work does not count as the server's: seeds the heavy store, starts the API
 * and reports over IPC its URL, the two keys and, once the run ends, its own event-loop delay and
 * CPU time (FAIRNESS_PROFILE=dir: also a CPU profile of the run alone).
 */

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pricingLookups } from '../src/cli/pricing-lookups.js';
import { defaultRequestLimits } from '../src/config/request-limits-config.js';
import { createKeyStore } from '../src/keys/key-store.js';
import { startTestApi, testChains } from '../test/support/api-harness.js';
import { seedHeavyStore } from '../test/support/heavy-wallet.js';

export interface ServerReady {
  type: 'ready';
  url: string;
  heavyKey: string;
  lightKey: string;
  store: Awaited<ReturnType<typeof seedHeavyStore>>;
  seededMs: number;
  spamTokens: number;
  logs: number;
}

export interface ServerStats {
  type: 'stats';
  loopDelay: { p50: number; p99: number; max: number };
  cpuMs: number;
}

const spamTokens = Number(process.env.FAIRNESS_SPAM_TOKENS ?? 10_000);
const logs = Number(process.env.FAIRNESS_LOGS ?? 75_000);
const keyDbConcurrency = Number(
  process.env.FAIRNESS_KEY_DB ?? defaultRequestLimits.keyDbConcurrency,
);
const keyRequestConcurrency = Number(
  process.env.FAIRNESS_KEY_REQUESTS ?? defaultRequestLimits.keyRequestConcurrency,
);
const profileDir = process.env.FAIRNESS_PROFILE;
// The response cache as `serve` runs it by default (RESPONSE_CACHE_MB 64, scoped invalidation);
// FAIRNESS_CACHE=off measures every request reaching the database.
const cache = process.env.FAIRNESS_CACHE !== 'off';

const send = (message: object) => process.send?.(message);
const chains = testChains();
// The API's production pool size (10) and per-key slots.
const api = await startTestApi({
  chains,
  poolMax: 10,
  limits: { keyDbConcurrency, keyRequestConcurrency },
  ...(cache
    ? { responseCache: { maxBytes: 64 * 1024 * 1024, maxAgeMs: 600_000, invalidation: 'scoped' } }
    : {}),
  pricingFrom: (db) => pricingLookups(db, chains),
});
const started = performance.now();
const store = await seedHeavyStore(api.t.db, { spamTokens, days: 366, logs });
const keys = createKeyStore(api.t.db);
const heavyKey = (await keys.create({ name: 'heavy' })).key;
const lightKey = (await keys.create({ name: 'light' })).key;
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
let cpuAtStart = process.cpuUsage();
const session = profileDir ? new Session() : undefined;

process.on('message', async (message: { type: string }) => {
  if (message.type === 'start') {
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    cpuAtStart = process.cpuUsage();
    loopDelay.enable();
  } else if (message.type === 'stop') {
    loopDelay.disable();
    const cpu = process.cpuUsage(cpuAtStart);
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(`${profileDir}/fairness-server.cpuprofile`, JSON.stringify(profile));
      session.disconnect();
    }
    const ms = (ns: number) => Math.round(ns / 1e6);
    const stats: ServerStats = {
      type: 'stats',
      loopDelay: {
        p50: ms(loopDelay.percentile(50)),
        p99: ms(loopDelay.percentile(99)),
        max: ms(loopDelay.max),
      },
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    };
    send(stats);
    await api.close();
    process.disconnect?.();
  }
});
const ready: ServerReady = {
  type: 'ready',
  url: api.url,
  heavyKey,
  lightKey,
  store,
  seededMs: Math.round(performance.now() - started),
  spamTokens,
  logs,
};
send(ready);

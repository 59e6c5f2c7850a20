import type { HeavyStore } from './heavy-wallet.js';
import { type LoadFigures, loop } from './load-probe.js';

export interface FairnessRun {
  /** The key running the heaviest legal requests. */
  heavy: LoadFigures & { statuses: Record<string, number> };
  /** The key reading balances. */
  light: LoadFigures;
}

/**
 * The heaviest legal requests of the heavy store's spam wallet (one of each trigger). With
 * `variants` > 1, each trigger comes in that many forms (another past block, day count, page
 * size), so a response cache cannot answer them: what a caller set on defeating it sends.
 */
export function heavyPaths(store: HeavyStore, variants = 1): string[] {
  const w = store.spamWallet;
  const c = store.chainId;
  const out: string[] = [];
  for (let i = 0; i < variants; i++) {
    // Past blocks 2..head-1 (the seeded history has one block per day).
    const past = 2 + (i % Math.max(1, store.headBlock - 2));
    out.push(
      `/v1/evm/balances/${w}?chain_ids=${c}&block_number=${past}&exclude_unpriced=true&limit=1`,
      `/v1/evm/portfolio/${w}?days=${365 - (i % 60)}&chain_ids=${c}`,
      `/v1/evm/transactions/${w}?chain_ids=${c}&limit=${100 - (i % 50)}`,
      `/v1/evm/balances/${w}?chain_ids=${c}&block_number=${past + 1}&limit=1000`,
      `/v1/evm/balances/${w}?chain_ids=${c}&limit=${1000 - (i % 100)}`,
    );
  }
  return out;
}

/** One key's request loop of a fairness run: until `endAt` (epoch ms), from `startAt`. */
export interface KeyLoop {
  url: string;
  key: string;
  paths: string[];
  connections: number;
  startAt: number;
  endAt: number;
}

/** Runs `run` in this process (the default runner of `runFairness`). */
export async function runKeyLoop(run: KeyLoop): Promise<LoadFigures> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, run.startAt - Date.now())));
  return loop(run.url, run.key, run.paths, run.connections, () => Date.now() >= run.endAt);
}

/** The path the light key reads: the light wallet's balances. */
export const lightPath = (store: HeavyStore) =>
  `/v1/evm/balances/${store.lightWallet}?chain_ids=${store.chainId}`;

/**
 * One key runs the heaviest legal requests on `heavyConnections` connections while another key
 * reads balances on `lightConnections`, for `durationMs`; the figures of both. `runner` runs each
 * key's loop (default: in this process; the bench gives each key a process of its own).
 *
 * @example
 * const { heavy, light } = await runFairness({ url, heavyKey, lightKey, store, durationMs: 5_000 });
 */
export async function runFairness(opts: {
  url: string;
  heavyKey: string;
  lightKey: string;
  store: HeavyStore;
  durationMs: number;
  heavyConnections?: number;
  lightConnections?: number;
  /** Forms of each heavy request (see heavyPaths); 1 repeats the same five. */
  heavyVariants?: number;
  runner?: (run: KeyLoop) => Promise<LoadFigures>;
}): Promise<FairnessRun> {
  const runner = opts.runner ?? runKeyLoop;
  const now = Date.now();
  const endAt = now + opts.durationMs;
  const [heavy, lightFigures] = await Promise.all([
    runner({
      url: opts.url,
      key: opts.heavyKey,
      paths: heavyPaths(opts.store, opts.heavyVariants),
      connections: opts.heavyConnections ?? 40,
      startAt: now,
      endAt,
    }),
    // The light key starts once the heavy one has filled its queues.
    runner({
      url: opts.url,
      key: opts.lightKey,
      paths: [lightPath(opts.store)],
      connections: opts.lightConnections ?? 10,
      startAt: now + Math.min(500, opts.durationMs / 4),
      endAt,
    }),
  ]);
  const statuses: Record<string, number> = { ...heavy.failures };
  statuses['200'] = heavy.requests - Object.values(heavy.failures).reduce((a, b) => a + b, 0);
  return { heavy: { ...heavy, statuses }, light: lightFigures };
}

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

/**
 * One key runs the heaviest legal requests on `heavyConnections` connections while another key
 * reads balances on `lightConnections`, for `durationMs`; the figures of both.
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
}): Promise<FairnessRun> {
  const end = Date.now() + opts.durationMs;
  const until = () => Date.now() >= end;
  const light = `/v1/evm/balances/${opts.store.lightWallet}?chain_ids=${opts.store.chainId}`;
  const [heavy, lightFigures] = await Promise.all([
    loop(
      opts.url,
      opts.heavyKey,
      heavyPaths(opts.store, opts.heavyVariants),
      opts.heavyConnections ?? 40,
      until,
    ),
    // The light key starts once the heavy one has filled its queues.
    new Promise<LoadFigures>((resolve, reject) => {
      setTimeout(
        () => {
          loop(opts.url, opts.lightKey, [light], opts.lightConnections ?? 10, until).then(
            resolve,
            reject,
          );
        },
        Math.min(500, opts.durationMs / 4),
      );
    }),
  ]);
  const statuses: Record<string, number> = { ...heavy.failures };
  statuses['200'] = heavy.requests - Object.values(heavy.failures).reduce((a, b) => a + b, 0);
  return { heavy: { ...heavy, statuses }, light: lightFigures };
}

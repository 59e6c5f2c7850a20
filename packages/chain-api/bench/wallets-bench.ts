import type { ChainConfig } from '../src/chains/index.js';
import { indexOnce, startIndexers } from '../src/wallets/start-indexers.js';
import { workloadChain } from '../test/indexer/workload-chain.js';
import { alwaysReady, get, log, serveStore, waitFor } from '../test/wallets/wallets-harness.js';
import { buildWalletHistory } from './wallet-history.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1] ?? fallback) : fallback;
}
const transfers = arg('transfers', 10_000);
const cold = arg('cold', 100);
const emptyBlocks = arg('empty-blocks', 200_000);
const waitMs = arg('wait-ms', 10_000);

const seconds = (t0: number) => Math.round((performance.now() - t0) / 10) / 100;
const { anvil, w, hot, head, buildSeconds } = await buildWalletHistory({
  emptyBlocks,
  transfers,
  cold,
});
try {
  console.log(
    `history: ${head} blocks, hot wallet ${transfers} transfers, built in ${buildSeconds} s`,
  );

  // 1. Full indexing.
  const fullChain = workloadChain(anvil.rpcUrl, w);
  const full = await serveStore(fullChain, alwaysReady(31337));
  const t1 = performance.now();
  await indexOnce({ db: full.db, chains: [fullChain], log, maxBatchSize: 2_000 });
  const fullSeconds = seconds(t1);
  await full.app.close();
  await full.t.drop();

  // 2-3. Wallets mode.
  const chain: ChainConfig = { ...fullChain, mode: 'wallets' };
  let status = () => [] as ReturnType<Awaited<ReturnType<typeof startIndexers>>['status']>;
  const s = await serveStore(chain, { status: () => status() }, waitMs);
  const indexers = await startIndexers({
    db: s.db,
    chains: [chain],
    log,
    pollIntervalMs: 100,
    wallets: { concurrency: 8, rpcPerSecond: 100_000 },
  });
  status = () => indexers.status();
  await waitFor(() => indexers.status()[0]?.ready === true, 120_000);
  const complete = async (wallet: string) => {
    for (;;) {
      const page = await get(s, `/v1/evm/activity/${wallet}?chain_ids=31337&limit=100`);
      const warnings = (page.body.warnings ?? []) as { code: string }[];
      if (page.status === 200 && !warnings.some((x) => x.code === 'WALLET_BACKFILL_IN_PROGRESS'))
        return;
      await new Promise((r) => setTimeout(r, Number(page.retryAfter ?? 1) * 100));
    }
  };
  const t2 = performance.now();
  await complete(hot);
  const hotSeconds = seconds(t2);
  const t3 = performance.now();
  await Promise.all(w.wallets.slice(1, 1 + cold).map(complete));
  const coldSeconds = seconds(t3);
  await indexers.stop();
  await s.app.close();
  await s.t.drop();

  console.log('\n| run | seconds |\n|---|---:|');
  console.log(`| full indexing of ${head} blocks | ${fullSeconds} |`);
  console.log(
    `| wallets mode: cold wallet with ${transfers} transfers, first request to complete answer | ${hotSeconds} |`,
  );
  console.log(
    `| wallets mode: ${cold} cold wallets requested at once, all complete | ${coldSeconds} |`,
  );
} finally {
  await anvil.stop();
}
